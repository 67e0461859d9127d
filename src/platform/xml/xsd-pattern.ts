/**
 * XSD 1.0 regular expressions (XML Schema Part 2, Appendix F) translated to JavaScript, for the
 * subset DGI's schemas use: literal characters, character class expressions with ranges, single
 * character escapes, groups, alternation and quantifiers. XSD patterns are implicitly anchored and
 * `^`/`$` are ordinary characters there. Anything outside the subset (`.`, multi-character escapes
 * such as \d or \p{…}, class subtraction) throws, so the caller falls back to libxml2.
 */

/** XSD SingleCharEsc: \n \r \t \\ \| \. \? \* \+ \( \) \{ \} \- \[ \] \^ */
const SINGLE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', r: '\r', t: '\t', '\\': '\\', '|': '|', '.': '.', '?': '?', '*': '*', '+': '+', '(': '(', ')': ')', '{': '{', '}': '}', '-': '-', '[': '[', ']': ']', '^': '^' };

const lit = (ch: string) => `\\u{${ch.codePointAt(0)!.toString(16)}}`;

export function compileXsdPattern(pattern: string): RegExp {
  const chars = [...pattern];
  let i = 0;
  const peek = () => chars[i];
  const fail = (why: string): never => {
    throw new Error(`${why} at ${i}`);
  };

  const escape = (): string => {
    i++; // the backslash
    const c = chars[i++];
    if (c === undefined || !(c in SINGLE_ESCAPES)) fail(`escape \\${c ?? ''} not supported`);
    return SINGLE_ESCAPES[c];
  };

  const classExpr = (): string => {
    i++; // [
    let out = '[';
    if (peek() === '^') {
      out += '^';
      i++;
    }
    let first = true;
    while (peek() !== ']') {
      if (peek() === undefined) fail('unterminated class');
      if (peek() === '[') fail('nested class');
      let from: string;
      if (peek() === '\\') from = escape();
      else {
        from = chars[i++];
        if (from === '-' && !first && peek() !== ']') fail('class subtraction or misplaced -');
      }
      first = false;
      if (peek() === '-' && chars[i + 1] !== ']' && chars[i + 1] !== undefined) {
        i++;
        if (peek() === '[') fail('class subtraction');
        const to = peek() === '\\' ? escape() : chars[i++];
        if (to.codePointAt(0)! < from.codePointAt(0)!) fail('reversed range');
        out += `${lit(from)}-${lit(to)}`;
      } else {
        out += lit(from);
      }
    }
    i++; // ]
    if (first) fail('empty class');
    return `${out}]`;
  };

  const quantifier = (): string => {
    const c = peek();
    if (c === '?' || c === '*' || c === '+') {
      i++;
      return c;
    }
    if (c !== '{') return '';
    const close = chars.indexOf('}', i);
    if (close < 0) fail('unterminated quantifier');
    const body = chars.slice(i + 1, close).join('');
    if (!/^\d+(,\d*)?$/.test(body)) fail(`quantifier {${body}}`);
    i = close + 1;
    return `{${body}}`;
  };

  const regExp = (): string => {
    const branches = [branch()];
    while (peek() === '|') {
      i++;
      branches.push(branch());
    }
    return branches.join('|');
  };

  const branch = (): string => {
    let out = '';
    while (i < chars.length && peek() !== '|' && peek() !== ')') {
      const c = peek();
      let atom: string;
      if (c === '(') {
        i++;
        atom = `(?:${regExp()})`;
        if (peek() !== ')') fail('unbalanced (');
        i++;
      } else if (c === '[') atom = classExpr();
      else if (c === '\\') atom = lit(escape());
      else if (c === '.' || c === '?' || c === '*' || c === '+' || c === '{' || c === '}' || c === ']') atom = fail(`metacharacter ${c}`);
      else {
        i++;
        atom = lit(c);
      }
      out += atom + quantifier();
    }
    return out;
  };

  const body = regExp();
  if (i !== chars.length) fail('unbalanced )');
  return new RegExp(`^(?:${body})$`, 'u');
}
