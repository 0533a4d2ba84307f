// The errno code of a Node system error (ENOENT, EACCES...): what the OS adapters decide on and
// name in their messages.
export function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}
