package stats

import "math"

// maxTDF is the largest df the t functions compute exactly; beyond it the
// normal is closer than 1e-3 in the quantile.
const maxTDF = 1000

// tConst[df] is ln Γ((ν+1)/2) − ln Γ(ν/2) − ln Γ(1/2) for ν = df: the
// constant of the t density and of its incomplete beta.
var tConst = func() []float64 {
	out := make([]float64, maxTDF+1)
	lh, _ := math.Lgamma(0.5)
	for df := 1; df <= maxTDF; df++ {
		nu := float64(df)
		a, _ := math.Lgamma((nu + 1) / 2)
		b, _ := math.Lgamma(nu / 2)
		out[df] = a - b - lh
	}
	return out
}()

// TSF is P(T > t) for Student's t with df degrees of freedom (normal when
// df is large or not positive).
func TSF(t float64, df int) float64 {
	if df <= 0 || df > maxTDF {
		return 1 - NormalCDF(t)
	}
	nu := float64(df)
	x := nu / (nu + t*t)
	p := 0.5 * incBeta(nu/2, 0.5, x, tConst[df]) // P(|T| > |t|)/2
	if t < 0 {
		return 1 - p
	}
	return p
}

// tPDF is the density of Student's t with df degrees of freedom.
func tPDF(t float64, df int) float64 {
	nu := float64(df)
	return math.Exp(tConst[df] - 0.5*math.Log(nu) - (nu+1)/2*math.Log1p(t*t/nu))
}

// TQuantile is the t with P(T > t) = p: exact for 1 and 2 degrees of
// freedom, otherwise the Cornish–Fisher expansion (Abramowitz & Stegun
// 26.7.5) polished by Newton steps on TSF.
func TQuantile(p float64, df int) float64 {
	switch {
	case df <= 0 || df > maxTDF:
		return NormalQuantile(1 - p)
	case df == 1:
		return math.Tan(math.Pi * (0.5 - p))
	case df == 2:
		q := 1 - p
		return (2*q - 1) / math.Sqrt(2*q*(1-q))
	}
	z := NormalQuantile(1 - p)
	nu := float64(df)
	z2 := z * z
	t := z + z*(z2+1)/(4*nu) + z*((5*z2+16)*z2+3)/(96*nu*nu) +
		z*(((3*z2+19)*z2+17)*z2-15)/(384*nu*nu*nu) +
		z*((((79*z2+776)*z2+1482)*z2-1920)*z2-945)/(92160*nu*nu*nu*nu)
	for range 12 {
		d := tPDF(t, df)
		if d <= 0 {
			break
		}
		step := (TSF(t, df) - p) / d
		t += step
		if math.Abs(step) < 1e-10*max(1, math.Abs(t)) {
			break
		}
	}
	return t
}

// incBeta is I_x(a, b) given lnc = ln Γ(a+b) − ln Γ(a) − ln Γ(b)
// (Numerical Recipes' continued fraction).
func incBeta(a, b, x, lnc float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	front := math.Exp(lnc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const eps, tiny = 1e-14, 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		aa := fm * (b - fm) * x / ((qam + 2*fm) * (a + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + 2*fm) * (qap + 2*fm))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// Chi2Quantile is the x with P(χ²_ν ≤ x) = p, by bisection on the
// regularized lower incomplete gamma function.
func Chi2Quantile(p, nu float64) float64 {
	lo, hi := 0.0, max(10*nu, 100)
	for range 200 {
		mid := (lo + hi) / 2
		if regIncGamma(nu/2, mid/2) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncGamma is P(a, x), the regularized lower incomplete gamma function
// (Numerical Recipes: its series below a+1, its continued fraction above).
func regIncGamma(a, x float64) float64 {
	if x <= 0 {
		return 0
	}
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 1000; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return sum * math.Exp(-x+a*math.Log(x)-lg)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c, d := 1/tiny, 1/b
	h := d
	for i := 1; i < 1000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return 1 - math.Exp(-x+a*math.Log(x)-lg)*h
}
