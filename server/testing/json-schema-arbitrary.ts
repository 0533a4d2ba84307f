// Test code: fast-check arbitraries drawn from the JSON Schemas of the API document itself (not
// from our zod schemas), valid values and invalid ones, as an OpenAPI fuzzer draws them.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';

type Schema = Record<string, any>;

export interface OpenApiDoc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

/** ajv over the document's components: validates anything that refers to them. */
export function documentValidator(doc: OpenApiDoc): (schema: Schema) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: 'ferry:components', components: doc.components });
  const cache = new Map<string, ValidateFunction>();
  return (schema) => {
    const text = JSON.stringify(schema).replaceAll(
      '"#/components/',
      '"ferry:components#/components/',
    );
    let fn = cache.get(text);
    if (!fn) {
      fn = ajv.compile(JSON.parse(text));
      cache.set(text, fn);
    }
    return fn;
  };
}

const MAX_ITEMS = 4;

export class SchemaArbitraries {
  constructor(private readonly doc: OpenApiDoc) {}

  private resolve(schema: Schema): Schema {
    if (typeof schema.$ref === 'string') {
      const name = schema.$ref.replace('#/components/schemas/', '');
      return this.resolve(this.doc.components.schemas[name]!);
    }
    return schema;
  }

  /** Values the schema accepts (filter them with the validator: combined keywords). */
  valid(schema: Schema): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    if (s.const !== undefined) return fc.constant(s.const);
    if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
    if (Array.isArray(s.anyOf)) return fc.oneof(...s.anyOf.map((x: Schema) => this.valid(x)));
    if (Array.isArray(s.oneOf)) return fc.oneof(...s.oneOf.map((x: Schema) => this.valid(x)));
    if (Array.isArray(s.allOf))
      return this.valid(Object.assign({}, ...s.allOf.map((x: Schema) => this.resolve(x))));
    const type = Array.isArray(s.type) ? s.type : [s.type];
    if (type.length > 1) return fc.oneof(...type.map((t: string) => this.valid({ ...s, type: t })));
    switch (type[0]) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.oneof(
          fc.integer({
            min: Math.max(s.minimum ?? -1e6, Number.MIN_SAFE_INTEGER),
            max: Math.min(s.maximum ?? 1e6, Number.MAX_SAFE_INTEGER),
          }),
          fc.constantFrom(
            ...[s.minimum, s.maximum].filter((v): v is number => typeof v === 'number'),
            0,
          ),
        );
      case 'number':
        return fc.double({
          min: s.minimum ?? -1e9,
          max: s.maximum ?? 1e9,
          noNaN: true,
          noDefaultInfinity: true,
        });
      case 'string': {
        if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern, 'u'));
        const bounds = {
          minLength: s.minLength ?? 0,
          maxLength: Math.min(s.maxLength ?? 24, 300),
        };
        return fc.oneof(
          fc.string({ unit: 'binary', ...bounds }),
          fc.string({ unit: 'grapheme', ...bounds }),
          fc.string(bounds),
        );
      }
      case 'array':
        return fc.array(this.valid(s.items ?? {}), {
          minLength: s.minItems ?? 0,
          maxLength: Math.min(s.maxItems ?? MAX_ITEMS, MAX_ITEMS),
        });
      case 'object': {
        const props: Record<string, Schema> = s.properties ?? {};
        if (Object.keys(props).length === 0 && s.additionalProperties) {
          return fc.dictionary(
            this.valid({ type: 'string', ...(s.propertyNames ?? {}) }) as fc.Arbitrary<string>,
            this.valid(s.additionalProperties),
            { maxKeys: Math.min(s.maxProperties ?? MAX_ITEMS, MAX_ITEMS) },
          );
        }
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries(props)) record[k] = this.valid(v);
        return fc.record(record, { requiredKeys: s.required ?? [] });
      }
      default:
        return fc.jsonValue();
    }
  }

  /**
   * Values that are wrong somewhere: the whole value of another type, a member replaced by
   * anything, an unknown member, a required one missing, or a string or number just outside
   * its bounds. Filter with the validator: a mutation may happen to stay valid.
   */
  invalid(schema: Schema): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const anything = fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constant([]),
      fc.constant({}),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const variants: fc.Arbitrary<unknown>[] = [anything];
    const type = Array.isArray(s.type) ? s.type : [s.type];
    if (type.includes('object') && s.properties) {
      const props = Object.entries(s.properties as Record<string, Schema>);
      const base = this.valid(s) as fc.Arbitrary<Record<string, unknown>>;
      if (props.length) {
        variants.push(
          fc
            .tuple(base, fc.constantFrom(...props))
            .chain(([value, [key, prop]]) =>
              fc.oneof(anything, this.invalid(prop)).map((bad) => ({ ...value, [key]: bad })),
            ),
        );
      }
      if (s.additionalProperties === false)
        variants.push(
          fc
            .tuple(base, fc.string({ minLength: 1, maxLength: 12 }), anything)
            .map(([value, key, extra]) => ({ ...value, [key]: extra })),
        );
      if (Array.isArray(s.required) && s.required.length)
        variants.push(
          fc.tuple(base, fc.constantFrom(...(s.required as string[]))).map(([value, key]) => {
            const copy = { ...value };
            delete copy[key];
            return copy;
          }),
        );
    }
    if (type.includes('string')) {
      if (typeof s.maxLength === 'number')
        variants.push(
          fc.constant('x'.repeat(s.maxLength + 1)),
          fc.constant('é'.repeat(s.maxLength + 1)),
        );
      if (typeof s.minLength === 'number' && s.minLength > 0) variants.push(fc.constant(''));
      if (Array.isArray(s.not?.enum)) variants.push(fc.constantFrom(...s.not.enum));
      variants.push(fc.string({ unit: 'binary', maxLength: 70 }));
    }
    if (type.includes('integer') || type.includes('number')) {
      if (typeof s.minimum === 'number') variants.push(fc.constant(s.minimum - 1));
      if (typeof s.maximum === 'number' && s.maximum < Number.MAX_SAFE_INTEGER)
        variants.push(fc.constant(s.maximum + 1));
      if (type.includes('integer')) variants.push(fc.constant(1.5));
    }
    return fc.oneof(...variants);
  }
}
