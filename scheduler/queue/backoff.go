package queue

import "time"

// backoffDuration is initial doubled for every attempt after the first, capped
// at maxBackoff. No attempt yet, or a zero maxBackoff, means no backoff.
func backoffDuration(attempts int, initial, maxBackoff time.Duration) time.Duration {
	if attempts <= 0 || maxBackoff <= 0 || initial <= 0 {
		return 0
	}
	d := initial
	for i := 1; i < attempts; i++ {
		if d > maxBackoff-d {
			return maxBackoff
		}
		d *= 2
	}
	return min(d, maxBackoff)
}
