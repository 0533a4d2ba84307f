// The web graphical mode once this browser's session is over: what happened, and the way back in.
export function SignedOut() {
  return (
    <main className="waiting">
      <h1>Ferry</h1>
      <p role="status">This browser is signed out of Ferry.</p>
      <p>
        Its session was ended from Settings, went unused for too long, or reached its time limit; or
        this page was opened without its sign-in link. To open Ferry again, run{' '}
        <code>netcli gui</code> on this computer.
      </p>
    </main>
  );
}
