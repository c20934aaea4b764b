package driver

// The limits an input budget comes from (DRV-10, STATUS-1 budget_basis).
const (
	BasisMaxInput      = "max_input_tokens"
	BasisWindowLessCap = "context_window_less_output_cap"
)

// Budget is the input a choice's model accepts on one call: the input
// ceiling, or the window less the output cap the call sends, whichever is
// smaller (DRV-10). The zero Budget (Window 0) is a choice with no window:
// nothing is measured against it and nothing is compacted.
type Budget struct {
	Window int64  // the context window: context.max_tokens, else config.context_window_tokens
	Tokens int64  // the input budget; may be ≤ 0, which launch refuses
	Basis  string // BasisMaxInput or BasisWindowLessCap
}

// Has reports whether the choice declares a window, so a budget exists.
func (b Budget) Has() bool { return b.Window > 0 }

// InputBudget is the budget of a choice with these options when the call
// sends outputCap as its output cap; window > 0 overrides the choice's
// own context_window_tokens (context.max_tokens).
func (o Options) InputBudget(window, outputCap int64) Budget {
	if window <= 0 {
		window = o.ContextWindowTokens
	}
	if window <= 0 {
		return Budget{}
	}
	b := Budget{Window: window, Tokens: window - outputCap, Basis: BasisWindowLessCap}
	if o.MaxInputTokens > 0 && o.MaxInputTokens < b.Tokens {
		b.Tokens, b.Basis = o.MaxInputTokens, BasisMaxInput
	}
	return b
}
