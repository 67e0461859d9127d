/**
 * Text the API accepts must be representable in DGI's XML and storable in PostgreSQL: XML 1.0 allows
 * no C0 control character but tab, line feed and carriage return, no U+FFFE/U+FFFF and no lone
 * surrogate (XML 1.0 §2.2 Char), and PostgreSQL's text refuses U+0000. Such a character in one
 * item name used to reach the CFE builder after numbering (and a NUL reached the database): a 500.
 * Every JSON body, query string and path parameter is checked here, once, for every route: a
 * 400 VALIDACION naming the field.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';

const ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** A JSON text can only yield such a string through a \u escape, a surrogate pair or U+FFFE/F as such. */
const MAY_HOLD_ILLEGAL = /\\u|[\uD800-\uDFFF\uFFFE\uFFFF]/;

/** The path and code point of the first string (value or key) holding a character XML 1.0 does not allow. */
export function findIllegalText(value: unknown, path = ''): { campo: string; codePoint: number } | undefined {
  if (typeof value === 'string') {
    const m = ILLEGAL.exec(value);
    return m ? { campo: path, codePoint: m[0].codePointAt(0)! } : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findIllegalText(value[i], path ? `${path}.${i}` : String(i));
      if (found) return found;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(value)) {
    const at = path ? `${path}.${k}` : k;
    if (ILLEGAL.test(k)) return { campo: at, codePoint: ILLEGAL.exec(k)![0].codePointAt(0)! };
    const found = findIllegalText(v, at);
    if (found) return found;
  }
  return undefined;
}

function refuse(campo: string, codePoint: number) {
  const u = `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  const mensaje = `contiene un carácter no admitido (${u}): los textos no pueden llevar caracteres de control ni caracteres inválidos en XML`;
  return errors.VALIDACION(`Datos inválidos: ${campo}: ${mensaje}`, { campos: [{ campo, mensaje }] });
}

export function registerTextSafety(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request: FastifyRequest, raw: string | Buffer, done) => {
    const body = typeof raw === 'string' ? raw : raw.toString('utf8'); // parseAs 'string': always a string
    parseJson(request, body, (err: Error | null, parsed?: unknown) => {
      if (err) return done(err, undefined);
      // Most bodies hold no escape and no character outside the BMP: one scan of the text, no walk.
      const found = MAY_HOLD_ILLEGAL.test(body) ? findIllegalText(parsed) : undefined;
      return found ? done(refuse(found.campo, found.codePoint), undefined) : done(null, parsed);
    });
  });
  app.addHook('preValidation', (request, _reply, done) => {
    const found = findIllegalText(request.query, 'query') ?? findIllegalText(request.params, 'params');
    done(found ? refuse(found.campo, found.codePoint) : undefined);
  });
}
