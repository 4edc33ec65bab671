/** The limit columns of a key row; the mapping is the domain's (shared with the services that read keys through the store). */
export { columnsOfChange, limitsOfRow } from '../../../domain/api-key-limit-columns.ts';
