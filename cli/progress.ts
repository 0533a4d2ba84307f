// A spinner on stderr while a long call runs, on a terminal only (never with --json).
import type { TerminalOutput } from './terminal-output.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export async function withProgress<T>(
  out: Pick<TerminalOutput, 'isTTY' | 'writeControls'>,
  label: string,
  enabled: boolean,
  work: Promise<T>,
): Promise<T> {
  if (!enabled || !out.isTTY) return work;
  let frame = 0;
  const draw = () => out.writeControls(`\r${FRAMES[frame++ % FRAMES.length]} ${label}`);
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work;
  } finally {
    clearInterval(timer);
    out.writeControls('\r\x1b[K');
  }
}
