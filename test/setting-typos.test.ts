import { describe, expect, it } from '@jest/globals';
import { editDistance, settingTypos } from '../src/settings/setting-typos.ts';

// Start-up's warnings about variables that look like a setting without being one: which names are
// warned about, which setting each is said to resemble, and the edit distance that decides it.

const warning = (name: string, setting: string) =>
  `Warning: ${name} is not a setting of this gateway and is ignored: did you mean ${setting}? (npm start -- --help lists the settings)`;

describe('settingTypos', () => {
  it('says nothing about an empty environment', () => {
    expect(settingTypos({})).toEqual([]);
  });

  it("says nothing about the gateway's settings and the embedded sandbox's, spelt right", () => {
    expect(settingTypos({ PORT: '4000', WORKER_HEARTBEAT_TIMEOUT_MS: '10000', SANDBOX_PORT: '4010', SANDBOX_HOST: '127.0.0.1', SANDBOX_LIVE_SEED: 'x' })).toEqual([]);
  });

  it('warns about a short name one edit from a setting, not two', () => {
    expect(settingTypos({ PROT: '1', WORKER: '2', METRIX: 'true', HOME: '/root' })).toEqual([warning('PROT', 'PORT'), warning('WORKER', 'WORKERS')]);
  });

  it('warns about a name of ten characters or more two edits from a setting, not three', () => {
    expect(settingTypos({ LOG_LEVEXX: 'info', MAX_BATCH_SZ: '5', MAX_BATCH_S: '5', METRICSXY: 'true' })).toEqual([
      warning('LOG_LEVEXX', 'LOG_LEVEL'),
      warning('MAX_BATCH_SZ', 'MAX_BATCH_SIZE'),
    ]);
  });

  it('warns about a setting spelt in another letter case, naming it as it is spelt', () => {
    expect(settingTypos({ port: '4001', Port: '4002', sandbox_host: '0.0.0.0' })).toEqual([
      warning('Port', 'PORT'),
      warning('port', 'PORT'),
      warning('sandbox_host', 'SANDBOX_HOST'),
    ]);
  });

  it('warns about any name with one of the settings’ prefixes, naming the nearest setting of that family', () => {
    expect(settingTypos({ CURSOR_PORT: '1', UPSTREAM_NONSENSE: '1', MAX_QUERY_X: '1', PERSISTED_QUERY: 'on', cors_origin: 'x' })).toEqual([
      warning('CURSOR_PORT', 'CURSOR_SECRET'),
      warning('MAX_QUERY_X', 'MAX_QUERY_COST'),
      warning('PERSISTED_QUERY', 'PERSISTED_QUERIES'),
      warning('UPSTREAM_NONSENSE', 'UPSTREAM_URL'),
      warning('cors_origin', 'CORS_ORIGINS'),
    ]);
  });

  it('says nothing about a name far from every setting and without one of their prefixes', () => {
    expect(settingTypos({ XCURSOR_PORT: '1', PATH: '/bin', HOSTNAME: 'box', NODE_OPTIONS: '', OTEL_RESOURCE_ATTRIBUTES: 'a=b' })).toEqual([]);
  });

  it('checks a variable whatever its value, an unset or empty one included', () => {
    expect(settingTypos({ PROT: undefined, WORKER: '' })).toEqual([warning('PROT', 'PORT'), warning('WORKER', 'WORKERS')]);
  });

  it('lists its warnings in name order, capitals first, whatever order the environment has', () => {
    expect(settingTypos({ port: '1', WORKER: '1', PROT: '1' })).toEqual([warning('PROT', 'PORT'), warning('WORKER', 'WORKERS'), warning('port', 'PORT')]);
  });
});

describe('editDistance', () => {
  it('is zero between equal texts, the empty text included', () => {
    expect([editDistance('', ''), editDistance('PORT', 'PORT')]).toEqual([0, 0]);
  });

  it('counts each insertion, deletion and substitution as one', () => {
    expect([editDistance('a', ''), editDistance('', 'abc'), editDistance('PORT', 'PORTS'), editDistance('PORTS', 'PORT'), editDistance('PORT', 'PART')]).toEqual([1, 3, 1, 1, 1]);
  });

  it('counts a swap of neighbours as one edit, in either direction', () => {
    expect([editDistance('ab', 'ba'), editDistance('PROT', 'PORT'), editDistance('PORT', 'PROT'), editDistance('ABCD', 'BADC')]).toEqual([1, 1, 1, 2]);
  });

  it('never edits a swapped pair again: CA to ABC takes three edits, not two', () => {
    expect([editDistance('CA', 'ABC'), editDistance('ABC', 'CA')]).toEqual([3, 3]);
  });
});

describe('the families of settings', () => {
  it("takes a family's own name, give or take an edit, for its main setting", () => {
    expect(settingTypos({ RATE_LIMIT: '20', RATE_LIMT: '20', RATE: '20', UPSTREAM: 'https://platform.example.com', CURSOR: 's', CURSOR_SECRETS: 's', SANDBOX: '1', PAGE_SIZE: '10' })).toEqual([
      warning('CURSOR', 'CURSOR_SECRET'),
      warning('CURSOR_SECRETS', 'CURSOR_SECRET'),
      warning('PAGE_SIZE', 'PAGE_SIZE_DEFAULT'),
      warning('RATE', 'RATE_LIMIT_PER_SECOND'),
      warning('RATE_LIMIT', 'RATE_LIMIT_PER_SECOND'),
      warning('RATE_LIMT', 'RATE_LIMIT_PER_SECOND'),
      warning('SANDBOX', 'SANDBOX_PORT'),
      warning('UPSTREAM', 'UPSTREAM_URL'),
    ]);
  });

  it('reads a plural and its singular as one word', () => {
    expect(settingTypos({ WORKER_COUNT: '2', WORKERS_HEARTBEAT_TIMEOUT_MS: '1', TRUSTED_PROXY: '10.0.0.1' })).toEqual([
      warning('TRUSTED_PROXY', 'TRUSTED_PROXIES'),
      warning('WORKERS_HEARTBEAT_TIMEOUT_MS', 'WORKER_HEARTBEAT_TIMEOUT_MS'),
      warning('WORKER_COUNT', 'WORKERS'),
    ]);
  });

  it('are derived from the settings: a word two settings share starts one, but not OpenTelemetry’s namespace or a common word alone', () => {
    expect(settingTypos({
      COMPILED: 'true', READY_TIMEOUT_MS: '1', SHUTDOWN_GRACE_MS: '1', AUTH_FAILURE_LIMIT: '5', MAX_QUERY: '1',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=b', OTEL_SDK_DISABLED: 'true', MAX_OLD_SPACE_SIZE: '512', REQUESTS_CA_BUNDLE: '/etc/ssl/ca.pem', AUTH_TOKEN: 'x', PAGER: 'less', RATEL: 'x',
    })).toEqual([
      warning('AUTH_FAILURE_LIMIT', 'AUTH_FAILURE_LIMIT_PER_MINUTE'),
      warning('COMPILED', 'COMPILED_EXECUTION'),
      warning('MAX_QUERY', 'MAX_QUERY_TOKENS'),
      warning('READY_TIMEOUT_MS', 'READY_PROBE_TIMEOUT_MS'),
      warning('SHUTDOWN_GRACE_MS', 'SHUTDOWN_DELAY_MS'),
    ]);
  });

  it('says nothing about the variables Kubernetes sets for a Service named like a family', () => {
    expect(settingTypos({
      UPSTREAM_SERVICE_HOST: '10.96.0.12', UPSTREAM_SERVICE_PORT: '443', UPSTREAM_SERVICE_PORT_HTTPS: '443', UPSTREAM_PORT: 'tcp://10.96.0.12:443',
      UPSTREAM_PORT_443_TCP: 'tcp://10.96.0.12:443', UPSTREAM_PORT_443_TCP_PROTO: 'tcp', UPSTREAM_PORT_443_TCP_PORT: '443', UPSTREAM_PORT_443_TCP_ADDR: '10.96.0.12',
      RATE_LIMIT_SERVICE_HOST: '10.96.0.13', RATE_LIMIT_PORT: 'tcp://10.96.0.13:6379',
    })).toEqual([]);
  });

  it('still warns about a *_PORT variable whose value is no Service address', () => {
    expect(settingTypos({ UPSTREAM_PORT: '443', RATE_LIMIT_PORT: '6379' })).toEqual([warning('RATE_LIMIT_PORT', 'RATE_LIMIT_BURST'), warning('UPSTREAM_PORT', 'UPSTREAM_URL')]);
  });
});
