/**
 * DGI RUT lookup and BCU exchange rates behind the dgi/ client contracts, with an answer cache
 * (issue 5 point 8). `DGI_MODE=simulator` (default) talks to the local simulator over loopback:
 * the one at DGI_SIMULATOR_URL, or one started in-process on first use. `real` uses DGI's and
 * BCU's endpoints. Callers never hold a database transaction across these calls.
 */
import { X509Certificate } from 'node:crypto';
import type { ExchangeRate, RutInfo, WsSecurityCredentials } from '../dgi/dgi.client.js';
import { RutSoapClient } from '../dgi/rut.soap-client.js';
import { BcuSoapClient } from '../dgi/bcu.soap-client.js';
import { RegistrySoapClient } from '../dgi/registry.soap-client.js';
import { SIMULATOR_PATHS, type DgiSimulator } from '../dgi/dgi.simulator.js';
import { startDgiSimulatorThread } from '../dgi/simulator/thread.js';
import type { SigningContext } from '../emission/index.js';
import type { Logger } from '../../platform/logger.js';

export interface LookupsSettings {
  mode: 'simulator' | 'real';
  simulatorUrl?: string;
  /** Where the in-process simulator keeps its state; unset = in memory only. */
  simulatorStatePath?: string;
  /** UI value for the in-process simulator's e-Ticket threshold (BRIEF 1). */
  uiValue?: string;
  /** Nice value of the in-process simulator's thread (config DGI_SIMULATOR_NICE). */
  simulatorNice?: number;
  rutUrl: string;
  bcuUrl: string;
  /** DGI's ws_consultas (BRIEF 7) in `real` mode: the registry of electronic issuers. */
  consultasUrl: string;
  cacheTtlSeconds: number;
}

interface Entry<T> { value: T; expires: number }

/** Small TTL cache; also shares an in-flight lookup between concurrent callers. */
function cached<T>(ttlMs: number, load: (key: string) => Promise<T>) {
  const map = new Map<string, Entry<Promise<T>>>();
  return (key: string): Promise<T> => {
    const now = Date.now();
    const hit = map.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = load(key);
    map.set(key, { value, expires: now + ttlMs });
    value.catch(() => map.delete(key)); // failures are not cached
    if (map.size > 10_000) map.delete(map.keys().next().value!);
    return value;
  };
}

export function createLookups(settings: LookupsSettings, logger: Logger) {
  let simulator: Promise<DgiSimulator> | undefined;
  let closing = false;
  // On its own thread, off the API's event loop (issue 29 point 3); started again if that thread ends. An end
  // this service did not ask for is logged with its cause: the simulator's memory grows with every CFE it
  // remembers (~1 KB each), so a sandbox that took millions can die of an out-of-memory.
  const inProcessSimulator = () =>
    (simulator ??= startDgiSimulatorThread({ statePath: settings.simulatorStatePath, uiValue: settings.uiValue }, { nice: settings.simulatorNice }).then((sim) => {
      void sim.exited.then(({ code, error }) => {
        simulator = undefined;
        if (!closing) logger.error({ code, err: error }, 'the in-process DGI simulator thread ended; it starts again at the next DGI call');
      });
      return sim;
    }));
  const baseUrl = async (): Promise<string | undefined> => {
    if (settings.mode === 'real') return undefined;
    if (settings.simulatorUrl) return settings.simulatorUrl.replace(/\/$/, '');
    return (await inProcessSimulator()).url.replace(/\/$/, '');
  };
  const urls = async () => {
    const base = await baseUrl();
    return base
      ? { rut: base + SIMULATOR_PATHS.rut, bcu: base + SIMULATOR_PATHS.bcu, consultas: base + SIMULATOR_PATHS.consultas }
      : { rut: settings.rutUrl, bcu: settings.bcuUrl, consultas: settings.consultasUrl };
  };
  const ttl = settings.cacheTtlSeconds * 1000;

  const rate = cached<ExchangeRate | null>(ttl, async (key) => {
    const [currency, date] = key.split('|');
    return new BcuSoapClient({ endpoint: (await urls()).bcu, timeoutMs: 10_000 }).getRate(currency, date);
  });

  const rutClients = new Map<number, RutSoapClient>();
  const ruts = new Map<number, (rut: string) => Promise<RutInfo | null>>();

  return {
    /** BCU quote for the currency on `date` (walks back over holidays), cached. */
    getRate: (currency: string, date: string) => rate(`${currency}|${date}`),

    /**
     * DGI's WS_PersonaGetActEmpresarial for `rut`, signed with the company's certificate (WS-Security,
     * BRIEF 11); cached per company. `null` = DGI has no usable company under that RUT.
     */
    async lookupRut(companyId: number, ctx: SigningContext, rut: string): Promise<RutInfo | null> {
      let fn = ruts.get(companyId);
      if (!fn) {
        fn = cached<RutInfo | null>(ttl, async (r) => {
          let client = rutClients.get(companyId);
          if (!client) {
            client = new RutSoapClient({ endpoint: (await urls()).rut, credentials: credentialsOf(ctx), timeoutMs: 10_000 });
            rutClients.set(companyId, client);
          }
          return client.lookup(r);
        });
        ruts.set(companyId, fn);
      }
      return fn(rut);
    },

    /** DGI's registry of electronic issuers (EFACCONSULTARRUCEMISORES, BRIEF 7), signed with `ctx`'s certificate. */
    async registryClient(ctx: SigningContext): Promise<RegistrySoapClient> {
      return new RegistrySoapClient({ endpoint: (await urls()).consultas, credentials: credentialsOf(ctx) });
    },

    /** A DGI address: `realUrl` in DGI_MODE=real, else the same path on the external or in-process simulator. */
    async dgiUrl(realUrl: string, simulatorPath: string): Promise<string> {
      const base = await baseUrl();
      return base ? base + simulatorPath : realUrl;
    },

    /** The in-process simulator, if one was started (tests use its control API). */
    simulator: async () => (settings.mode === 'simulator' && !settings.simulatorUrl ? inProcessSimulator() : undefined),

    async close() {
      closing = true;
      if (simulator) await (await simulator).close();
    },
  };
}

function credentialsOf(ctx: SigningContext): WsSecurityCredentials {
  return {
    privateKeyPem: ctx.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    certificatePem: new X509Certificate(ctx.certificate.der).toString(),
    algorithm: 'sha256',
  };
}

export type Lookups = ReturnType<typeof createLookups>;
