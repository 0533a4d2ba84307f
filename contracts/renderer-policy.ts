// The app's Content-Security-Policy, one for every place that serves the renderer: the engine
// host's web graphical mode (a header), the Electron app's ferry-app:// scheme (a header) and the
// page itself (a meta tag, which cannot carry frame-ancestors). The page may load and reach its
// own origin only: no inline script or style, no eval, no plugins, no forms, no framing.

const DIRECTIVES = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
] as const;

/** The policy a server sends with every answer. */
export const RENDERER_CSP = [...DIRECTIVES, "frame-ancestors 'none'"].join('; ');

/** The same policy for the page's meta tag (browsers ignore frame-ancestors there). */
export const RENDERER_CSP_META = DIRECTIVES.join('; ');
