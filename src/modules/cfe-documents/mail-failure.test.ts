import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyMailFailure } from './mail-failure.ts';

describe('classifyMailFailure', () => {
  it('4xx replies are transient, 5xx permanent (RFC 5321 4.2.1)', () => {
    assert.deepEqual(classifyMailFailure({ responseCode: 421, response: '421 busy', code: 'EENVELOPE' }), { transient: true, codigoSmtp: 421, mensaje: '421 busy' });
    assert.equal(classifyMailFailure({ responseCode: 452, code: 'EENVELOPE' }).transient, true);
    assert.deepEqual(classifyMailFailure({ responseCode: 550, response: '550 no such user', code: 'EENVELOPE' }), { transient: false, codigoSmtp: 550, mensaje: '550 no such user' });
    assert.equal(classifyMailFailure({ responseCode: 535, code: 'EAUTH' }).transient, false);
  });

  it('connection-level failures without a reply are transient; malformed messages are not', () => {
    assert.equal(classifyMailFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })).transient, true);
    assert.equal(classifyMailFailure(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT' })).transient, true);
    assert.equal(classifyMailFailure(Object.assign(new Error('No recipients defined'), { code: 'EENVELOPE' })).transient, false);
    assert.equal(classifyMailFailure('boom').mensaje, 'boom');
  });
});
