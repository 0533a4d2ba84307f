// zod compiles fast parsers with `new Function` when it may; the page's CSP forbids eval, so
// it is told not to try (each try would be a CSP violation). Imported first by main.tsx.
import { config } from 'zod';

config({ jitless: true });
