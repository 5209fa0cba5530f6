import { Text, type TextProps, Transform } from 'ink';
import { dropWrapSpace } from '../text-cells.js';

/**
 * Text that wraps as prose: Ink keeps the space a row broke at as the next row's first cell
 * (wrap-ansi without trimming), so a row that fills the width exactly is followed by one that
 * starts with a space; here the rows after the first lose that space.
 */
export function Prose(props: TextProps) {
  return (
    <Transform transform={dropWrapSpace}>
      <Text {...props} />
    </Transform>
  );
}
