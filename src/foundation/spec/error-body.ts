/** The one error shape of the API (decisions.md, "Errors"). */
export interface ErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: string | null;
    /** Set when the error came from a provider. */
    provider?: string;
  };
  /** Guardrail verdicts, on 446 answers. */
  hook_results?: unknown;
}
