/**
 * A progress bar on stderr: redrawn in place on a terminal, one line per tenth otherwise (logs, tests). Never on
 * stdout, which carries only the JSON result lines.
 */
export function progressBar(label: string, total: number): (done: number) => void {
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  let lastDraw = 0;
  return (done: number) => {
    const fraction = total > 0 ? Math.min(1, done / total) : 1;
    const percent = (100 * fraction).toFixed(0).padStart(3);
    const mb = (n: number) => (n / 1048576).toFixed(1);
    if (tty) {
      const now = Date.now();
      if (now - lastDraw < 100 && fraction < 1) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(width * fraction);
      process.stderr.write(`\r${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${percent}% ${mb(done)}/${mb(total)} MB${fraction === 1 ? "\n" : ""}`);
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth === lastTenth) return;
    lastTenth = tenth;
    process.stderr.write(`${label}: ${percent}% ${mb(done)}/${mb(total)} MB\n`);
  };
}
