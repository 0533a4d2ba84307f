// Each diagnostic check with its verdict, what was found and what to do. The roles are spelled
// out because narrow windows lay the rows out as blocks, which costs a table its semantics in
// some browsers.
import type { DiagnosticsReport } from '../../../contracts/diagnostics.js';
import { sentence } from '../../store/error-words.js';
import { VERDICT_WORDS } from './verdict-words.js';

export function CheckTable(props: { report: DiagnosticsReport }) {
  return (
    <div className="table-wrap">
      <table role="table" className="checks" data-checked-at={props.report.checked_at}>
        <caption>Diagnostic results</caption>
        <thead role="rowgroup">
          <tr role="row">
            <th role="columnheader" scope="col">
              Check
            </th>
            <th role="columnheader" scope="col">
              Verdict
            </th>
            <th role="columnheader" scope="col">
              Found
            </th>
            <th role="columnheader" scope="col">
              What to do
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          {props.report.checks.map((c) => (
            <tr role="row" key={c.id} className={`check check--${c.verdict}`}>
              <th role="rowheader" scope="row">
                {c.title}
              </th>
              <td role="cell">
                <span className={`verdict verdict--${c.verdict}`}>{VERDICT_WORDS[c.verdict]}</span>
              </td>
              <td role="cell">{sentence(c.summary)}</td>
              <td role="cell" className="check__fix">
                {c.fix ? sentence(c.fix) : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
