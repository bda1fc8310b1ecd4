package stats

import (
	"math"
	"testing"
)

// TestDistributions checks the t, χ² and normal functions against table
// values (R: qt, pt, qchisq).
func TestDistributions(t *testing.T) {
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6g, want %.6g", name, got, want)
		}
	}
	near("qt(0.975, 1)", TQuantile(0.025, 1), 12.7062, 1e-3)
	near("qt(0.975, 2)", TQuantile(0.025, 2), 4.30265, 1e-4)
	near("qt(0.975, 4)", TQuantile(0.025, 4), 2.77645, 1e-4)
	near("qt(0.975, 20)", TQuantile(0.025, 20), 2.08596, 1e-4)
	near("qt(0.05, 10)", TQuantile(0.95, 10), -1.81246, 1e-4)
	near("pt(2.08596, 20, lower=FALSE)", TSF(2.08596, 20), 0.025, 1e-6)
	near("pt(-1, 3, lower=FALSE)", TSF(-1, 3), 0.804499, 1e-6)
	near("qchisq(0.05, 1)", Chi2Quantile(0.05, 1), 0.00393214, 1e-6)
	near("qchisq(0.05, 4)", Chi2Quantile(0.05, 4), 0.710723, 1e-5)
	near("qchisq(0.1, 22)", Chi2Quantile(0.1, 22), 14.0415, 1e-3)
	near("qchisq(0.05, 100)", Chi2Quantile(0.05, 100), 77.9295, 1e-3)
	near("qnorm(0.975)", NormalQuantile(0.975), 1.959964, 1e-6)
	for _, df := range []int{3, 7, 40, 999} {
		for _, p := range []float64{0.4, 0.05, 1e-3, 1e-7} {
			if got := TSF(TQuantile(p, df), df); math.Abs(got-p) > 1e-6*p+1e-12 {
				t.Errorf("TSF(TQuantile(%g, %d)) = %g", p, df, got)
			}
		}
	}
}
