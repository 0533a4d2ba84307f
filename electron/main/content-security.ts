// The renderer's Content-Security-Policy: its own scripts, styles and images only, no eval, no
// remote content, no plugins, no framing; and the session hook that puts it on every answer.

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

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
