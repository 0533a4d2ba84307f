// A spinner on stderr while a long call runs, on a terminal only (never with --json).
import type { Output } from './io.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export async function withProgress<T>(
  out: Output,
  label: string,
  enabled: boolean,
  work: Promise<T>,
): Promise<T> {
  if (!enabled || !out.isTTY) return work;
  let frame = 0;
  const draw = () => out.write(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    out.write('\r\x1b[K');
  }
}
