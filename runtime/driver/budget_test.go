package driver

import "testing"

func TestInputBudget_DRV10(t *testing.T) {
	for _, c := range []struct {
		name           string
		opts           Options
		window, capOut int64
		want           Budget
	}{
		{"no window", Options{MaxInputTokens: 100000}, 0, 8192, Budget{}},
		{"window less cap", Options{ContextWindowTokens: 200000}, 0, 8192, Budget{Window: 200000, Tokens: 191808, Basis: BasisWindowLessCap}},
		{"input ceiling smaller", Options{ContextWindowTokens: 32000, MaxInputTokens: 16000}, 0, 8192, Budget{Window: 32000, Tokens: 16000, Basis: BasisMaxInput}},
		{"input ceiling larger", Options{ContextWindowTokens: 32000, MaxInputTokens: 30000}, 0, 8192, Budget{Window: 32000, Tokens: 23808, Basis: BasisWindowLessCap}},
		{"context.max_tokens overrides", Options{ContextWindowTokens: 200000}, 32768, 4096, Budget{Window: 32768, Tokens: 28672, Basis: BasisWindowLessCap}},
		{"context.max_tokens without a config window", Options{}, 32768, 4096, Budget{Window: 32768, Tokens: 28672, Basis: BasisWindowLessCap}},
		{"zero", Options{ContextWindowTokens: 8192}, 0, 8192, Budget{Window: 8192, Tokens: 0, Basis: BasisWindowLessCap}},
	} {
		if got := c.opts.InputBudget(c.window, c.capOut); got != c.want {
			t.Errorf("%s: InputBudget = %+v, want %+v", c.name, got, c.want)
		}
	}
}
