/**
 * Whether a kie task is the one an attempt submitted, by kie's own record of the request (issue 29,
 * item 6). recordInfo (and the Veo and Suno record-info calls) return the original request JSON as
 * `param` (`paramJson` for Veo). The callback URL we send is unique per attempt (its id and an
 * unguessable token), so a record that carries one must carry ours; a record without one must have
 * the body we sent, field for field.
 */
import { isRecord, parseJson, stringAt } from '../shared/json-values.ts';

export type JobOwnership = 'ours' | 'foreign' | 'unknown';

export function kieRecordOwnership(record: Record<string, unknown>, sent: Record<string, unknown>): JobOwnership {
  const text = stringAt(record, 'param') ?? stringAt(record, 'paramJson');
  if (text === undefined) return 'unknown';
  const param = parseJson(Buffer.from(text));
  if (!isRecord(param)) return 'unknown';
  if (typeof param.callBackUrl === 'string') return param.callBackUrl === sent.callBackUrl ? 'ours' : 'foreign';
  const { callBackUrl: _ours, ...rest } = sent;
  return canonical(param) === canonical(rest) ? 'ours' : 'foreign';
}

/** JSON with the keys of every object sorted, so that two equal requests compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
