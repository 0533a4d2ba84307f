// A country's flag (flag-icons' 4:3 SVG, copied beside the app by the build as flag-<code>.svg):
// an image with no words of its own (alt=""), always beside the country's name, which says it.
// A region of no one country (Global) gets a globe drawn in line.

export function flagFile(code: string): string {
  return `flag-${code.toLowerCase()}.svg`;
}

export function Flag(props: { code: string | null }) {
  if (!props.code || !/^[A-Za-z]{2}$/.test(props.code))
    return (
      <svg className="flag flag--globe" viewBox="0 0 16 12" aria-hidden="true" focusable="false">
        <circle cx="8" cy="6" r="5.2" />
        <ellipse cx="8" cy="6" rx="2.2" ry="5.2" />
        <line x1="2.8" y1="6" x2="13.2" y2="6" />
      </svg>
    );
  return <img className="flag" src={flagFile(props.code)} alt="" width={16} height={12} />;
}

/** A place with its flag: "🇯🇵 Tokyo, Japan". */
export function PlaceName(props: { code: string | null; label: string; className?: string }) {
  return (
    <span className={`place${props.className ? ` ${props.className}` : ''}`}>
      <Flag code={props.code} />
      <span className="place__name">{props.label}</span>
    </span>
  );
}
