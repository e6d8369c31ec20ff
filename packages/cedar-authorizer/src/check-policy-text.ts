/**
 * Bounds on Cedar text, checked before any text reaches Cedar. Cedar's parser,
 * validator and evaluator recurse once per nesting level and per operator of a chain
 * (`1 + 1 + …` is a tree as deep as it is long) and trap inside wasm when the stack runs
 * out: ~130 nested parentheses or set literals, a ~400-term chain, ~400 nested `if`.
 * The limits sit far below that and far above any policy a person writes.
 */
export const POLICY_TEXT_LIMITS = Object.freeze({
  /** Nesting of `()`, `[]`, `{}`, `if … then … else` (and `<>` in a schema). */
  maxNesting: 32,
  /** Operators in one policy (`.`, `!`, `-`, `+`, `*`, comparisons, `&&`, `||`, `in`, `has`, `like`, `is`). */
  maxOperators: 128,
});

const WORD_OPERATORS = new Set(['in', 'has', 'like', 'is']);
const TWO_CHAR_OPERATORS = new Set(['&&', '||', '==', '!=', '<=', '>=']);
const ONE_CHAR_OPERATORS = new Set(['<', '>', '+', '-', '*', '!', '.']);

/** Which grammar a text follows: schemas nest `<…>` types and have no expressions. */
export type CedarTextKind = 'policy' | 'schema';

/**
 * Scans one file (strings and `//` comments skipped) and returns the first problem as
 * `<file>:<line>: <reason>`, or undefined when the text is within the limits. Linear
 * in the text, no recursion, so a hostile text costs no more than its length.
 */
export function checkPolicyText(file: string, text: string, kind: CedarTextKind): string | undefined {
  const { maxNesting, maxOperators } = POLICY_TEXT_LIMITS;
  const openers = kind === 'schema' ? '([{<' : '([{';
  const closers = kind === 'schema' ? ')]}>' : ')]}';
  const ifsPerGroup: number[] = [0];
  let depth = 0;
  let operators = 0;
  let line = 1;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i] as string;
    if (ch === '\n') {
      line += 1;
    } else if (ch === '"') {
      for (i += 1; i < text.length && text[i] !== '"'; i += 1) {
        if (text[i] === '\\') i += 1;
        else if (text[i] === '\n') line += 1;
      }
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i + 1 < text.length && text[i + 1] !== '\n') i += 1;
    } else if (openers.includes(ch)) {
      ifsPerGroup.push(0);
      depth += 1;
    } else if (closers.includes(ch)) {
      if (ifsPerGroup.length > 1) depth -= 1 + (ifsPerGroup.pop() as number);
    } else if (/[A-Za-z_]/.test(ch)) {
      let end = i + 1;
      while (end < text.length && /[A-Za-z0-9_]/.test(text[end] as string)) end += 1;
      const word = text.slice(i, end);
      i = end - 1;
      // An `if` nests its branches without brackets: count it as one more level until
      // its enclosing group closes (over-counts `if`s in sequence, which fails safe).
      if (word === 'if' && kind === 'policy') {
        ifsPerGroup[ifsPerGroup.length - 1] = (ifsPerGroup[ifsPerGroup.length - 1] as number) + 1;
        depth += 1;
      } else if (kind === 'policy' && WORD_OPERATORS.has(word)) {
        operators += 1;
      }
    } else if (kind === 'policy' && TWO_CHAR_OPERATORS.has(text.slice(i, i + 2))) {
      operators += 1;
      i += 1;
    } else if (kind === 'policy' && ONE_CHAR_OPERATORS.has(ch)) {
      operators += 1;
    } else if (ch === ';' && ifsPerGroup.length === 1) {
      operators = 0;
      depth -= ifsPerGroup[0] as number;
      ifsPerGroup[0] = 0;
    }
    if (depth > maxNesting) return `${file}:${line}: nesting deeper than ${maxNesting}`;
    if (operators > maxOperators) return `${file}:${line}: more than ${maxOperators} operators in one policy`;
  }
  return undefined;
}
