/**
 * How big an `outputSchema` is once its `$ref`s are followed. The subset's limits (depth 10, 5,000
 * properties) hold for the text as written, but a definition may be referenced twice from another
 * that is referenced twice…: 40 definitions `d_i = {anyOf: [{$ref: d_i+1}, {$ref: d_i+1}]}` are
 * 2.7 KB of text and 2^40 schemas to try against a value. So the expansion is measured without
 * expanding it: each definition's size and depth are computed once (memoised), which makes the
 * measurement linear in the schema's text; a `$ref` cycle is refused, and so is a size or depth past
 * the limits, naming the JSON pointer of the place that passes them.
 *
 * Counting: every schema object is one node; a `$ref` is one node plus its definition's nodes. Depth
 * counts a step into a property, `items`, an `anyOf` branch or through a `$ref`, as the validator
 * descends.
 */

export const EXPANSION_LIMITS = { nodes: 50_000, depth: 64 } as const;

export type ExpansionCheck = { ok: true; nodes: number; depth: number } | { ok: false; pointer: string; message: string };

type Json = Record<string, unknown>;

interface Size {
  nodes: number;
  depth: number;
}

class ExpansionRefusal extends Error {
  readonly pointer: string;

  constructor(pointer: string, message: string) {
    super(message);
    this.pointer = pointer;
  }
}

/** Measures a schema whose structure is inside the subset (checkOutputSchema's walk passed it). */
export function measureExpansion(root: unknown): ExpansionCheck {
  if (!isPlainObject(root)) return { ok: true, nodes: 0, depth: 0 };
  try {
    const size = new ExpansionMeter(root).measure();
    return { ok: true, ...size };
  } catch (error) {
    if (error instanceof ExpansionRefusal) return { ok: false, pointer: error.pointer, message: error.message };
    throw error;
  }
}

class ExpansionMeter {
  readonly #root: Json;
  readonly #defs: Json;
  readonly #done = new Map<string, Size>();
  /** Definitions being measured, in order: a `$ref` to one of them closes a cycle. */
  readonly #open: string[] = [];

  constructor(root: Json) {
    this.#root = root;
    this.#defs = isPlainObject(root.$defs) ? root.$defs : {};
  }

  measure(): Size {
    // Every definition, used or not: the schema also goes to the model as it is.
    for (const name of Object.keys(this.#defs)) this.#definition(name, `/$defs/${pointerToken(name)}`, 1);
    return this.#node(this.#root, '', 0);
  }

  #definition(name: string, refPointer: string, pathDepth: number): Size {
    const known = this.#done.get(name);
    if (known) return known;
    const at = this.#open.indexOf(name);
    if (at >= 0) {
      const cycle = [...this.#open.slice(at), name].map((n) => `#/$defs/${pointerToken(n)}`).join(' → ');
      throw new ExpansionRefusal(refPointer, `$ref cycle ${cycle.slice(0, 300)}: recursive schemas are not supported`);
    }
    this.#open.push(name);
    const size = this.#node(this.#defs[name], `/$defs/${pointerToken(name)}`, pathDepth);
    this.#open.pop();
    this.#done.set(name, size);
    return size;
  }

  #node(node: unknown, pointer: string, pathDepth: number): Size {
    if (pathDepth > EXPANSION_LIMITS.depth) throw this.#tooDeep(pointer);
    if (!isPlainObject(node)) return { nodes: 1, depth: 0 };
    let nodes = 1;
    let depth = 0;
    const child = (sub: unknown, at: string) => {
      const size = this.#node(sub, at, pathDepth + 1);
      nodes += size.nodes;
      depth = Math.max(depth, size.depth + 1);
    };
    if (typeof node.$ref === 'string') {
      const raw = node.$ref.slice('#/$defs/'.length);
      const name = fromPointerToken(raw);
      if (Object.hasOwn(this.#defs, name)) {
        const size = this.#definition(name, `${pointer}/$ref`, pathDepth + 1);
        nodes += size.nodes;
        depth = size.depth + 1;
      }
    } else if (Array.isArray(node.anyOf)) {
      node.anyOf.forEach((branch, i) => {
        child(branch, `${pointer}/anyOf/${i}`);
      });
    } else {
      if (isPlainObject(node.properties)) for (const [key, sub] of Object.entries(node.properties)) child(sub, `${pointer}/properties/${pointerToken(key)}`);
      if (node.items !== undefined) child(node.items, `${pointer}/items`);
    }
    if (nodes > EXPANSION_LIMITS.nodes) {
      throw new ExpansionRefusal(pointer, `the schema expands to more than ${EXPANSION_LIMITS.nodes} nodes through $ref here (a value would take too long to check)`);
    }
    if (pathDepth + depth > EXPANSION_LIMITS.depth) throw this.#tooDeep(pointer);
    return { nodes, depth };
  }

  #tooDeep(pointer: string): ExpansionRefusal {
    return new ExpansionRefusal(pointer, `the schema is nested deeper than ${EXPANSION_LIMITS.depth} levels counted through $ref here`);
  }
}

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 6901: ~ as ~0, / as ~1. */
export function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

export function fromPointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
