/** A configuration value that cannot be used; `field` names it as the operator wrote it. */
export class ConfigError extends Error {
  readonly field: string;
  constructor(field: string, problem: string) {
    super(`invalid configuration: ${field}: ${problem}`);
    this.name = 'ConfigError';
    this.field = field;
  }
}
