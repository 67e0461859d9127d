/**
 * CHANGELOG.md (spec section 9) stays the source of the version: Keep a Changelog headings, dates
 * that exist and go back in time, the newest version equal to the OpenAPI info.version and
 * package.json's, and every event kind of the catalogue announced under an "Events" heading.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { APP_VERSION } from '../../src/app.js';
import { isCalendarDate } from '../../src/lib/dates.js';
import { eventCatalogue } from '../../src/modules/events/events.catalogue.js';

const root = path.resolve(import.meta.dirname, '../..');
const changelog = fs.readFileSync(path.join(root, 'CHANGELOG.md'), 'utf8');
const releases = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => ({ version: m[1], date: m[2], at: m.index }));

describe('CHANGELOG.md', () => {
  it('has an Unreleased section and dated releases, newest first', () => {
    assert.match(changelog, /^## \[Unreleased\]$/m);
    assert.ok(releases.length >= 2);
    for (const [i, r] of releases.entries()) {
      assert.ok(isCalendarDate(r.date), r.date);
      if (i > 0) assert.ok(r.date <= releases[i - 1].date, `${r.version} is dated after ${releases[i - 1].version}`);
    }
    for (const heading of changelog.matchAll(/^### (.+)$/gm)) assert.ok(['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security', 'Breaking', 'Events'].includes(heading[1]), heading[1]);
  });

  it('the newest version is the service version (OpenAPI info.version) and package.json version', () => {
    assert.equal(releases[0].version, APP_VERSION);
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version, APP_VERSION);
  });

  it('announces every event kind of the catalogue with the date of its release', () => {
    const eventSections = changelog.split(/^### /m).filter((part) => part.startsWith('Events\n')).map((part) => part.split(/^## /m)[0]).join('\n');
    for (const e of eventCatalogue) assert.ok(eventSections.includes(`\`${e.type}\``), `${e.type} is not announced in CHANGELOG.md`);
  });
});
