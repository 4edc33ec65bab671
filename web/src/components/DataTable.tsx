import type { ReactNode } from 'react';
import { TableScroll } from './common.tsx';

/** A column's header. */
export interface TableColumn {
  /** What the header says; also the column's key, so unique within a table. */
  label: string;
  /** Amounts and counts: right-aligned, tabular figures (the cells say `className="num"` too). */
  numeric?: boolean;
  /** Said to screen readers only: a column of buttons needs a name, not a visible heading. */
  hidden?: boolean;
}

/**
 * The dashboard's table: a labelled region that scrolls sideways on small screens, the column
 * headers, and the rows the page renders (each page's cells differ; the frame does not).
 */
export function DataTable(props: { label: string; columns: readonly TableColumn[]; className?: string; testId?: string; footer?: ReactNode; children: ReactNode }) {
  return (
    <TableScroll label={props.label}>
      <table className={props.className} data-testid={props.testId}>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.label} scope="col" className={column.numeric ? 'num' : undefined}>
                {column.hidden ? <span className="visually-hidden">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
        {props.footer ? <tfoot>{props.footer}</tfoot> : null}
      </table>
    </TableScroll>
  );
}
