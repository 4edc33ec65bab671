import { useId, useState } from 'react';
import type { CatalogModel } from '../api/index.ts';
import { Link } from '../router.tsx';
import { CopyButton } from './common.tsx';

type Language = 'curl' | 'python' | 'javascript';
const LABELS: Record<Language, string> = { curl: 'curl', python: 'Python (OpenAI SDK)', javascript: 'JavaScript (OpenAI SDK)' };

/** A first chat request in each language; the key is read from the environment, never written out. */
export function firstRequest(language: Language, baseUrl: string, textModel: string): string {
  switch (language) {
    case 'curl':
      return `curl -s ${baseUrl}/api/v1/chat/completions \\\n  -H "Authorization: Bearer $SWITCHBOARD_API_KEY" \\\n  -H 'content-type: application/json' \\\n  -d '{"model": "${textModel}", "messages": [{"role": "user", "content": "Say hello"}]}'`;
    case 'python':
      return `import os\nfrom openai import OpenAI\n\nclient = OpenAI(base_url="${baseUrl}/api/v1", api_key=os.environ["SWITCHBOARD_API_KEY"])\nreply = client.chat.completions.create(\n    model="${textModel}",\n    messages=[{"role": "user", "content": "Say hello"}],\n)\nprint(reply.choices[0].message.content)`;
    case 'javascript':
      return `import OpenAI from 'openai';\n\nconst client = new OpenAI({ baseURL: '${baseUrl}/api/v1', apiKey: process.env.SWITCHBOARD_API_KEY });\nconst reply = await client.chat.completions.create({\n  model: '${textModel}',\n  messages: [{ role: 'user', content: 'Say hello' }],\n});\nconsole.log(reply.choices[0].message.content);`;
  }
}

/** Overview's first steps for an account that has no key or has spent nothing yet. */
export function GettingStarted(props: { hasKey: boolean; catalog: CatalogModel[] | undefined }) {
  const [language, setLanguage] = useState<Language>('curl');
  const codeId = useId();
  const baseUrl = window.location.origin;
  const textModel = props.catalog?.find((m) => m.kind === 'llm')?.id ?? 'MODEL_ID';
  const code = firstRequest(language, baseUrl, textModel);
  return (
    <section className="panel getting-started" aria-labelledby="getting-started-title">
      <h2 id="getting-started-title">Getting started</h2>
      <ol className="steps">
        <li>
          <strong>Your base URL</strong>
          <div className="copy-row">
            <code className="mono base-url" data-testid="base-url">
              {baseUrl}/api/v1
            </code>
            <CopyButton text={`${baseUrl}/api/v1`} label="Copy base URL" />
          </div>
          <p className="hint">The OpenAI SDKs take it as their base URL; the Anthropic SDK takes {baseUrl}/api.</p>
        </li>
        <li>
          <strong>{props.hasKey ? 'You have an API key' : 'Create an API key'}</strong>
          <p>
            <Link to="/keys">{props.hasKey ? 'Manage your keys' : 'Create a key'}</Link> and set it as SWITCHBOARD_API_KEY where your program runs.
          </p>
        </li>
        <li>
          <strong>Send a first request</strong>
          <fieldset className="toolbar">
            <legend className="visually-hidden">Language</legend>
            {(Object.keys(LABELS) as Language[]).map((l) => (
              <button key={l} type="button" className="button button-small" aria-pressed={language === l} onClick={() => setLanguage(l)}>
                {LABELS[l]}
              </button>
            ))}
          </fieldset>
          <label htmlFor={codeId} className="visually-hidden">
            {LABELS[language]} code
          </label>
          <textarea id={codeId} className="mono code" wrap="off" readOnly rows={code.split('\n').length + 1} value={code} data-testid="first-request" />
          <CopyButton text={code} targetId={codeId} label="Copy code" />
        </li>
        <li>
          <strong>Or try without code</strong>
          <p>
            <Link to="/playground">Open the playground</Link> to make an image, a video or music, <Link to="/chat">chat</Link> with a text model, or see <Link to="/models">every model and its price</Link>.
          </p>
        </li>
      </ol>
    </section>
  );
}
