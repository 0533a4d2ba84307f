// Routes anyone may call: health, plans and the OpenAPI document, on both prefixes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type Harness } from './testing/control-plane-harness.js';

describe('public routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startControlPlane('sqlite');
  });
  afterAll(async () => h?.close());

  it.each(['/api/v1', '/v1'] as const)(
    'serves health, plans, the caller address and openapi.json under %s',
    async (prefix) => {
      expect((await h.call('GET', '/health', { prefix })).body).toMatchObject({
        status: 'ok',
        api: 'v1',
      });
      const plans = (await h.call('GET', '/plans', { prefix })).body.plans;
      const basic = plans.find((p: { id: string }) => p.id === 'basic');
      expect(basic.device_limit).toBeGreaterThanOrEqual(2);
      expect(basic.price_monthly_eur).toBe(0);
      expect(basic.data_cap_bytes).toBeGreaterThan(0);
      expect(basic.regions.length).toBeLessThan(
        plans.find((p: { id: string }) => p.id === 'premium').regions.length,
      );
      expect((await h.call('GET', '/ip', { prefix })).body).toEqual({ ip: '127.0.0.1' });
      const doc = await h.call('GET', '/openapi.json', { prefix });
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths)).toContain('/v1/connect');
    },
  );
});
