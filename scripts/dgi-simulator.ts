/**
 * Starts the DGI + BCU simulator standalone on loopback and prints its URLs.
 * Usage: npm run dgi:simulator -- [--port 8089] [--ack-delay-ms 0] [--no-cae-check] [--no-content-check] [--state file.jsonl] [--trust-anchors file-or-folder]
 * --no-content-check: skip Testing's content rules (simulator/content-rules.ts) and daily-report totals (report-rules.ts).
 * --trust-anchors: CAs trusted besides the accredited Uruguayan ones and the simulator's own (others get E04).
 * Without --state the simulated DGI forgets everything (keys, CAE, envelopes) when it stops.
 */
import { parseArgs } from 'node:util';
import { startDgiSimulator } from '../src/modules/dgi/dgi.simulator.ts';
import { loadTrustAnchors } from '../src/platform/crypto/trust-store.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8089' },
    'ack-delay-ms': { type: 'string', default: '0' },
    'no-cae-check': { type: 'boolean', default: false },
    'no-content-check': { type: 'boolean', default: false },
    state: { type: 'string' },
    'trust-anchors': { type: 'string' },
  },
});

const simulator = await startDgiSimulator({
  port: Number(values.port),
  ackDelayMs: Number(values['ack-delay-ms']),
  checkCaeRanges: !values['no-cae-check'],
  checkContent: !values['no-content-check'],
  statePath: values.state,
  trustAnchors: values['trust-anchors'] ? loadTrustAnchors(values['trust-anchors']).map((c) => c.toString()) : undefined,
});

console.log(`DGI simulator listening on ${simulator.url}`);
console.log(`  WS_eFactura (ePrueba):        ${simulator.urls.efactura}`);
console.log(`  WS_PersonaGetActEmpresarial:  ${simulator.urls.rut}`);
console.log(`  BCU awsbcucotizaciones:       ${simulator.urls.bcu}`);
console.log(values.state ? `State kept in ${values.state}` : 'State in memory only (--state <file> keeps it across restarts)');
console.log('Simulator CA (trust it for CAE/ACK signatures in demo mode, and add it to the API\'s CERT_TRUST_ANCHORS so its test certificates import without a warning):');
console.log(simulator.control.caCertificatePem);

const stop = async () => {
  await simulator.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
