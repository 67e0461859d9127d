import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JPEG, JPEG_GARBAGE, PNG_GARBAGE } from '../documents/raster-image.fixtures.js';
import { detectLogoType, LOGO_MAX_BYTES, validateLogo } from './logos.js';

describe('logo type detection', () => {
  it('recognises PNG, JPEG and SVG by content', () => {
    assert.equal(detectLogoType(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')), 'image/png');
    assert.equal(detectLogoType(Buffer.from('ffd8ffe000104a464946', 'hex')), 'image/jpeg');
    assert.equal(detectLogoType(Buffer.from('<?xml version="1.0"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>\n')), 'image/svg+xml');
  });

  it('rejects other content, HTML pretending to be SVG, empty and oversized files', () => {
    assert.equal(detectLogoType(Buffer.from('GIF89a....')), undefined);
    assert.equal(detectLogoType(Buffer.from('<html><svg></svg></html>')), undefined);
    assert.throws(() => validateLogo(Buffer.alloc(0)), { code: 'LOGO_INVALIDO' });
    assert.throws(() => validateLogo(Buffer.alloc(LOGO_MAX_BYTES + 1)), { code: 'LOGO_DEMASIADO_GRANDE' });
  });

  it('refuses a PNG or JPEG signature whose image does not decode; accepts a real one', () => {
    assert.throws(() => validateLogo(PNG_GARBAGE), { code: 'LOGO_DANADO' });
    assert.throws(() => validateLogo(JPEG_GARBAGE), { code: 'LOGO_DANADO' });
    assert.equal(validateLogo(JPEG), 'image/jpeg');
  });
});
