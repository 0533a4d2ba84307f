// Before the engine's first answer: waiting for it, or saying it does not answer.
export function EngineWaiting(props: { down: boolean }) {
  return (
    <main className="waiting" aria-busy={!props.down}>
      <h1>Ferry</h1>
      <p role="status">
        {props.down
          ? 'Ferry’s engine isn’t answering. Make sure Ferry is running; this window connects to it as soon as it is.'
          : 'Connecting to Ferry’s engine…'}
      </p>
    </main>
  );
}
