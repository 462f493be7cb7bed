//! Least-squares polynomial fit by Householder QR, for the daily model of *Research on
//! Incremental Updating Strategy of Web Forum Based on Statistics* (its section 2.3).
//!
//! The paper solves the normal equations X·A = Y; on raw times those are badly
//! conditioned (the Vandermonde matrix of t^k). Here the abscissae are normalized to
//! [-1, 1] by the caller and the system is solved by QR of the Vandermonde matrix itself,
//! which squares no condition number. The sizes are tiny (the daily model fits 32 points:
//! 24 hours padded by 4 on each side, with `schedule.periodic_degree` at most 20), so a
//! dense, allocation-light implementation is all that is needed.

/// Coefficients `c` (lowest degree first) of the polynomial of degree `degree` that
/// minimizes Σ (p(x_i) − y_i)². `None` when there are fewer points than coefficients,
/// the inputs are not finite, or the columns are dependent (repeated abscissae).
#[allow(
    clippy::many_single_char_names,
    reason = "the textbook names of Householder QR: A, b, m, n, v, c"
)]
pub(crate) fn polyfit(xs: &[f64], ys: &[f64], degree: usize) -> Option<Vec<f64>> {
    let m = xs.len();
    let n = degree + 1;
    if ys.len() != m || m < n || xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return None;
    }
    // Column-major Vandermonde matrix, m × n.
    let mut a = vec![0.0; m * n];
    for (i, &x) in xs.iter().enumerate() {
        let mut p = 1.0;
        for j in 0..n {
            a[j * m + i] = p;
            p *= x;
        }
    }
    let mut b = ys.to_vec();
    let scale = a.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    for k in 0..n {
        // Householder vector for column k, rows k..m.
        let col = &a[k * m..(k + 1) * m];
        let norm = col[k..].iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm <= scale * 1e-12 {
            return None;
        }
        let alpha = if col[k] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = col[k..].to_vec();
        v[0] -= alpha;
        let vv: f64 = v.iter().map(|x| x * x).sum();
        if vv == 0.0 {
            continue;
        }
        // Apply H = I − 2vvᵀ/(vᵀv) to the remaining columns and to b.
        for j in k..n {
            let c = &mut a[j * m + k..(j + 1) * m];
            let d: f64 = v.iter().zip(c.iter()).map(|(x, y)| x * y).sum();
            let f = 2.0 * d / vv;
            for (y, x) in c.iter_mut().zip(&v) {
                *y -= f * x;
            }
        }
        let d: f64 = v.iter().zip(&b[k..]).map(|(x, y)| x * y).sum();
        let f = 2.0 * d / vv;
        for (y, x) in b[k..].iter_mut().zip(&v) {
            *y -= f * x;
        }
    }
    // Back substitution with the upper triangle R (n × n).
    let mut c = vec![0.0; n];
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= a[j * m + i] * c[j];
        }
        let r = a[i * m + i];
        if r.abs() <= scale * 1e-12 {
            return None;
        }
        c[i] = s / r;
    }
    c.iter().all(|v| v.is_finite()).then_some(c)
}

/// p(x) by Horner's rule; `c` lowest degree first.
pub(crate) fn polyval(c: &[f64], x: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * x + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_a_known_polynomial_from_noiseless_samples() {
        let truth = [0.3, -1.2, 2.5, 0.7, -3.1, 0.05, 1.9];
        let xs: Vec<f64> = (0..24)
            .map(|i| -1.0 + (f64::from(i) + 0.5) / 12.0)
            .collect();
        let ys: Vec<f64> = xs.iter().map(|&x| polyval(&truth, x)).collect();
        let c = polyfit(&xs, &ys, truth.len() - 1).expect("fit");
        for (got, want) in c.iter().zip(truth) {
            assert!((got - want).abs() < 1e-9, "{c:?} vs {truth:?}");
        }
        // A higher degree than needed finds zero for the extra coefficients.
        let c = polyfit(&xs, &ys, 9).expect("fit");
        for (k, got) in c.iter().enumerate() {
            let want = truth.get(k).copied().unwrap_or(0.0);
            assert!(
                (got - want).abs() < 1e-7,
                "coefficient {k}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn least_squares_line_through_noisy_points() {
        // y = 1 + 2x with residuals ±0.1 that cancel: the line is exact.
        let xs = [0.0, 1.0, 2.0, 3.0];
        let ys = [1.1, 2.9, 5.1, 6.9];
        let c = polyfit(&xs, &ys, 1).expect("fit");
        // Normal equations by hand: slope = 1.96, intercept = 1.06.
        assert!((c[1] - 1.96).abs() < 1e-12, "{c:?}");
        assert!((c[0] - 1.06).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn refuses_underdetermined_and_degenerate_systems() {
        assert!(polyfit(&[0.0, 1.0], &[1.0, 2.0], 2).is_none());
        assert!(polyfit(&[0.5, 0.5, 0.5], &[1.0, 2.0, 3.0], 1).is_none());
        assert!(polyfit(&[0.0, f64::NAN, 1.0], &[1.0, 2.0, 3.0], 1).is_none());
        assert!(polyfit(&[0.0, 1.0], &[1.0], 0).is_none());
    }

    #[test]
    fn horner() {
        assert!((polyval(&[1.0, 2.0, 3.0], 2.0) - 17.0).abs() < 1e-12);
        assert!(polyval(&[], 2.0).abs() < 1e-12);
    }
}
