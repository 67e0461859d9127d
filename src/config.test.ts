import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

describe('config', () => {
  it('applies defaults: port 3000, embedded database under ./data, worker in process', () => {
    const c = loadConfig({});
    assert.equal(c.http.port, 3000);
    assert.match(c.dataDir, /data$/);
    assert.equal(c.db.url, undefined);
    assert.equal(c.worker.inProcess, true);
    assert.equal(c.auth.maxFailedLogins, 5);
    assert.equal(c.auth.accessTokenTtlSeconds, 900);
  });

  it('names the variable when a value is invalid', () => {
    assert.throws(() => loadConfig({ PORT: 'abc' }), (e: Error) => e instanceof ConfigError && e.message.includes('PORT'));
    assert.throws(() => loadConfig({ DATABASE_URL: 'not a url' }), (e: Error) => e.message.includes('DATABASE_URL'));
    assert.throws(() => loadConfig({ MASTER_KEY: 'short' }), (e: Error) => e.message.includes('MASTER_KEY'));
    assert.throws(() => loadConfig({ EMBEDDED_PG_SETTINGS: 'fsync off' }), (e: Error) => e.message.includes('EMBEDDED_PG_SETTINGS'));
  });

  it('passes EMBEDDED_PG_SETTINGS to the embedded PostgreSQL one setting at a time', () => {
    assert.deepEqual(loadConfig({}).db.embeddedSettings, []);
    assert.deepEqual(loadConfig({ EMBEDDED_PG_SETTINGS: ' shared_preload_libraries=pg_stat_statements  track_io_timing=on ' }).db.embeddedSettings,
      ['shared_preload_libraries=pg_stat_statements', 'track_io_timing=on']);
  });

  it('refuses production without secrets', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production' }), /JWT_SECRET, MASTER_KEY/);
    const ok = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), MASTER_KEY: 'a'.repeat(64), DATABASE_URL: 'postgres://u@h/db' });
    assert.equal(ok.isProduction, true);
    assert.equal(ok.worker.inProcess, false, 'with an external database the worker runs as its own process');
  });
});
