// DRAGOMAN_LOG_LEVEL is checked when the configuration is read, not when pino first trips over it.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/env.ts';
import { loggerOptions } from '../../src/observability/logger.ts';

describe('DRAGOMAN_LOG_LEVEL', () => {
  it('accepts pino levels in any case, defaults to info, refuses anything else', () => {
    expect(loadConfig({}).logLevel).toBe('info');
    expect(loadConfig({ DRAGOMAN_LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
    expect(loggerOptions(loadConfig({ DRAGOMAN_LOG_LEVEL: 'silent' }))).toMatchObject({ level: 'silent' });
    expect(() => loadConfig({ DRAGOMAN_LOG_LEVEL: 'verbose' })).toThrow(ConfigError);
    expect(() => loadConfig({ DRAGOMAN_LOG_LEVEL: 'verbose' })).toThrow(/DRAGOMAN_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
  });
});
