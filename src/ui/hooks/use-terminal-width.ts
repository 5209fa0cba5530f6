import { useStdout } from 'ink';
import { useEffect, useState } from 'react';

/** The terminal's width in columns, updated on resize (80 when the stream does not say). */
export function useTerminalWidth(): number {
  const { stdout } = useStdout();
  const [width, setWidth] = useState(() => stdout.columns || 80);
  useEffect(() => {
    const onResize = () => setWidth(stdout.columns || 80);
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);
  return width;
}
