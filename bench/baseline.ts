/**
 * A raw CPU baseline measured in the same run as a figure (GUIDE: machines differ ~2× in speed):
 * `openssl speed -seconds N rsa2048`, one process on one core; RSA-2048 signatures per second and
 * the CPU ms one signature costs. Figures are then also given as a ratio to it.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Baseline { what: string; signsPerSec: number; msPerSign: number }

export function rsaBaseline(seconds = 3): Baseline | undefined {
  return opensslSpeed(seconds, `openssl speed -seconds ${seconds} rsa2048 (one core)`);
}

function opensslSpeed(seconds: number, what: string, env?: NodeJS.ProcessEnv): Baseline | undefined {
  try {
    const out = execFileSync('openssl', ['speed', '-seconds', String(seconds), 'rsa2048'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env });
    const m = /^rsa\s+2048 bits\s+[\d.]+s\s+[\d.]+s\s+([\d.]+)\s+([\d.]+)/m.exec(out);
    if (!m) return undefined;
    const signsPerSec = Number(m[1]);
    return { what, signsPerSec, msPerSign: Number((1000 / signsPerSec).toFixed(4)) };
  } catch {
    return undefined;
  }
}

/**
 * OpenSSL signs RSA-2048 with AVX-512 IFMA where the CPU has it (ossl_rsaz_amm52x20_x2_256): 3,342
 * against 1,555 signs/s on one core of the same machine (2026-11-29), a 2.2× step that the rest of
 * the service (JavaScript, libxml2, PostgreSQL) does not take. A ratio to raw RSA is then not
 * comparable between machines with and without it, so where the CPU has IFMA the benches also give
 * the baseline without it: OPENSSL_ia32cap clears CPUID leaf 7 EBX bit 21 (AVX512IFMA) for that run
 * only. Undefined on a CPU without IFMA (the plain baseline is that figure) or without openssl.
 */
export function rsaBaselineWithoutIfma(seconds = 3): Baseline | undefined {
  let flags = '';
  try { flags = readFileSync('/proc/cpuinfo', 'latin1'); } catch { return undefined; }
  if (!/^flags\s*:.*\bavx512ifma\b/m.test(flags)) return undefined;
  return opensslSpeed(seconds, `OPENSSL_ia32cap=:~0x200000 openssl speed -seconds ${seconds} rsa2048 (one core, AVX-512 IFMA off)`, { ...process.env, OPENSSL_ia32cap: ':~0x200000' });
}
