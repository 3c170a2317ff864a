package human

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    float64
		want string
	}{
		{0, "0"}, {-0.3, "0"}, {0.6, "1"}, {42, "42"}, {999, "999"}, {999.4, "999"}, {999.5, "1k"},
		{1000, "1k"}, {1200, "1.2k"}, {1500, "1.5k"}, {-1500.5, "-1.5k"}, {104_072, "104k"}, {310_000, "310k"},
		{999_499, "999k"}, {999_500, "1M"}, {1_200_000, "1.2M"}, {1_234_567, "1.23M"}, {129_390_000, "129M"},
		{1_400_000_000, "1.4B"}, {1_425_950_720, "1.43B"}, {15_032_385_536, "15B"}, {28e9, "28B"}, {5e12, "5T"},
		{5e15, "5P"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"},
	} {
		if got := Count(c.n); got != c.want {
			t.Errorf("Count(%v) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := Int(int64(130_000_000)); got != "130M" {
		t.Errorf("Int(130e6) = %q", got)
	}
}
