/**
 * A raw CPU baseline measured in the same run as a figure (GUIDE: machines differ ~2× in speed):
 * `openssl speed -seconds N rsa2048`, one process on one core; RSA-2048 signatures per second and
 * the CPU ms one signature costs. Figures are then also given as a ratio to it.
 */
import { execFileSync } from 'node:child_process';

export interface Baseline { what: string; signsPerSec: number; msPerSign: number }

export function rsaBaseline(seconds = 3): Baseline | undefined {
  try {
    const out = execFileSync('openssl', ['speed', '-seconds', String(seconds), 'rsa2048'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const m = /^rsa\s+2048 bits\s+[\d.]+s\s+[\d.]+s\s+([\d.]+)\s+([\d.]+)/m.exec(out);
    if (!m) return undefined;
    const signsPerSec = Number(m[1]);
    return { what: `openssl speed -seconds ${seconds} rsa2048 (one core)`, signsPerSec, msPerSign: Number((1000 / signsPerSec).toFixed(4)) };
  } catch {
    return undefined;
  }
}
