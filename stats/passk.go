package stats

// PassAtK returns the unbiased estimator of pass@k, the probability that at
// least one of k attempts drawn without replacement from n attempts, c of
// which passed, passes (Chen et al. 2021, "Evaluating Large Language Models
// Trained on Code", eq. 1):
//
//	pass@k = 1 − C(n−c, k) / C(n, k) = 1 − Π_{i=n−c+1..n} (1 − k/i)
//
// evaluated as the product, which neither overflows nor cancels. It is
// undefined, and an [ErrArgument] error, unless 1 ≤ k ≤ n and 0 ≤ c ≤ n.
func PassAtK(n, c, k int) (float64, error) {
	if err := checkPassK(n, c, k); err != nil {
		return 0, err
	}
	if n-c < k {
		return 1, nil
	}
	prod := 1.0
	for i := n - c + 1; i <= n; i++ {
		prod *= 1 - float64(k)/float64(i)
	}
	return 1 - prod, nil
}

// PassHatK returns pass^k, the probability that k attempts drawn without
// replacement from n attempts, c of which passed, all pass (Yao et al. 2024,
// "τ-bench"):
//
//	pass^k = C(c, k) / C(n, k) = Π_{i=0..k−1} (c−i)/(n−i)
//
// It is undefined, and an [ErrArgument] error, unless 1 ≤ k ≤ n and
// 0 ≤ c ≤ n.
func PassHatK(n, c, k int) (float64, error) {
	if err := checkPassK(n, c, k); err != nil {
		return 0, err
	}
	if c < k {
		return 0, nil
	}
	prod := 1.0
	for i := range k {
		prod *= float64(c-i) / float64(n-i)
	}
	return prod, nil
}

func checkPassK(n, c, k int) error {
	switch {
	case n < 1:
		return errorf(CodeArgument, "%d attempts, need at least 1", n)
	case c < 0 || c > n:
		return errorf(CodeArgument, "%d successes out of %d attempts", c, n)
	case k < 1 || k > n:
		return errorf(CodeArgument, "k = %d must lie in [1, %d] (the number of attempts)", k, n)
	}
	return nil
}
