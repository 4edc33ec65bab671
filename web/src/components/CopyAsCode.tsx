import { useId, useState } from 'react';
import { CopyButton } from './common.tsx';

type Language = 'curl' | 'javascript' | 'python';
const LABELS: Record<Language, string> = { curl: 'curl', javascript: 'JavaScript', python: 'Python' };

/** The exact request as code to paste: the key is read from SWITCHBOARD_API_KEY, never written out. */
export function requestSnippet(language: Language, baseUrl: string, path: string, body: unknown): string {
  const json = JSON.stringify(body, null, 2);
  const url = `${baseUrl}${path}`;
  switch (language) {
    case 'curl':
      return `curl -s ${url} \\\n  -H "Authorization: Bearer $SWITCHBOARD_API_KEY" \\\n  -H 'content-type: application/json' \\\n  -d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`;
    case 'javascript':
      return `const response = await fetch('${url}', {\n  method: 'POST',\n  headers: { authorization: \`Bearer \${process.env.SWITCHBOARD_API_KEY}\`, 'content-type': 'application/json' },\n  body: JSON.stringify(${json.replace(/\n/g, '\n  ')}),\n});\nconsole.log(await response.json());`;
    case 'python':
      return `import os, requests\n\nresponse = requests.post(\n    '${url}',\n    headers={'Authorization': f"Bearer {os.environ['SWITCHBOARD_API_KEY']}"},\n    json=${pythonLiteral(body, '    ')},\n)\nprint(response.json())`;
  }
}

/** JSON as a Python literal (true/false/null spelled the Python way). */
function pythonLiteral(value: unknown, indent: string): string {
  return JSON.stringify(value, null, 4)
    .replace(/\n/g, `\n${indent}`)
    .replace(/(?<=[:[,\s])true(?=[,\n\]}])/g, 'True')
    .replace(/(?<=[:[,\s])false(?=[,\n\]}])/g, 'False')
    .replace(/(?<=[:[,\s])null(?=[,\n\]}])/g, 'None');
}

export function CopyAsCode(props: { path: string; body: unknown }) {
  const [language, setLanguage] = useState<Language>('curl');
  const id = useId();
  const code = requestSnippet(language, window.location.origin, props.path, props.body);
  return (
    <details className="copy-as-code">
      <summary>Copy as code</summary>
      <fieldset className="toolbar">
        <legend className="visually-hidden">Language</legend>
        {(Object.keys(LABELS) as Language[]).map((l) => (
          <button key={l} type="button" className="button button-small" aria-pressed={language === l} onClick={() => setLanguage(l)}>
            {LABELS[l]}
          </button>
        ))}
      </fieldset>
      <label htmlFor={id} className="visually-hidden">
        {LABELS[language]} code
      </label>
      <textarea id={id} className="mono code" readOnly rows={Math.min(18, code.split('\n').length + 1)} value={code} data-testid="code-snippet" />
      <CopyButton text={code} targetId={id} label="Copy code" />
      <p className="hint">Set SWITCHBOARD_API_KEY to one of your API keys first.</p>
    </details>
  );
}
