// The renderer's Content-Security-Policy: its own scripts, styles and images only, no eval, no
// remote content, no plugins, no framing; and the session hook that puts it on every answer.
import { RENDERER_CSP } from '../../contracts/index.js';

/** contracts' policy for the app, the same the web graphical mode sends. */
export const CONTENT_SECURITY_POLICY = RENDERER_CSP;

export type ResponseHeaders = Record<string, string[] | string>;

/** The answer's headers with our CSP in place of any the answer had (in any letter case). */
export function withContentSecurityPolicy(headers: ResponseHeaders | undefined): ResponseHeaders {
  const out: ResponseHeaders = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'content-security-policy') out[name] = value;
  }
  out['Content-Security-Policy'] = [CONTENT_SECURITY_POLICY];
  return out;
}
