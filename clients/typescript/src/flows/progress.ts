/** What the flows report while they run: the step they reached, and for transfers the bytes done of the total. */
export interface FlowProgress {
  step: string;
  detail?: Record<string, unknown>;
  done?: number;
  total?: number;
}

export type OnProgress = (progress: FlowProgress) => void;

export const report = (onProgress: OnProgress | undefined, step: string, detail?: Record<string, unknown>) => onProgress?.({ step, ...(detail ? { detail } : {}) });
