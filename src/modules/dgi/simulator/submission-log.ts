/** The simulator's log of the requests it received (`control.submissions()`, `control.observe`). */
import type { Submission } from '../dgi.simulator.ts';
import { CFE_RECIBIDOS_OPERATION } from './recibidos-service.ts';

const SERVICE_NAMES = new Map<string, Submission['service']>(
  (['EFACRECEPCIONSOBRE', 'EFACCONSULTARESTADOENVIO', 'EFACRECEPCIONREPORTE', CFE_RECIBIDOS_OPERATION, 'CONSULTAQR', 'RUT', 'BCU', 'UNKNOWN'] as const).map((n) => [n, n]),
);

/** Keeps the newest `keep` requests (at most twice as many) within `maxChars` characters of XML. */
export function submissionLog(keep: number, maxChars: number) {
  const log: Submission[] = [];
  const listeners = new Set<(s: Submission) => void>();
  let logChars = 0;
  return {
    record(s: Submission) {
      // The log keeps each request's XML (an envelope of 250 CFEs is ~1 MB): only the newest `keep`
      // requests and `maxChars` characters of XML are kept, or the in-process simulator of
      // `npm start` grew by every envelope ever sent (issue 29 point 5). `service` is replaced by its
      // constant: the name parsed from the request is a slice that kept the whole SOAP request alive.
      s.service = SERVICE_NAMES.get(s.service) ?? s.service;
      log.push(s);
      logChars += s.xmlData.length;
      if (log.length >= keep * 2 || logChars > maxChars * 2) {
        let drop = 0;
        while (drop < log.length - 1 && (log.length - drop > keep || logChars > maxChars)) logChars -= log[drop++].xmlData.length;
        log.splice(0, drop);
      }
      for (const listener of listeners) listener(s);
    },
    observe(listener: (s: Submission) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    list: () => [...log],
  };
}
