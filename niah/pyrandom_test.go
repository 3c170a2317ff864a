package niah

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPyRandomMatchesCPython checks pyRandom against values printed by CPython 3 for this call sequence:
//
//	r = random.Random(seed)
//	[r.getrandbits(32) for _ in range(3)], [r.randint(10**6, 10**7-1) for _ in range(3)],
//	r.getrandbits(40), r.getrandbits(64), str(uuid.UUID(int=r.getrandbits(128), version=4)),
//	r.sample(range(40), 4), r.sample(range(4), 1), r.sample(range(1), 1), r.sample(range(10), 7),
//	r.sample(range(1000), 8), l = list(range(6)); r.shuffle(l), r._randbelow(6182000)
func TestPyRandomMatchesCPython(t *testing.T) {
	type golden struct {
		seed      uint64
		bits32    [3]uint64
		ints      [3]int
		bits40    uint64
		bits64    uint64
		uuid      string
		sample40  []int
		sample4   []int
		sample1   []int
		sample10  []int
		sample1k  []int
		shuffled  []int
		randbelow int
	}
	cases := []golden{
		{42, [3]uint64{2746317213, 478163327, 107420369}, [3]int{5614226, 5108603, 4744854}, 808053162473,
			12482902213779070887, "16419f82-8b9d-4434-a465-e150bd9c66b3", []int{37, 27, 2, 1}, []int{0}, []int{0},
			[]int{3, 8, 0, 4, 1, 6, 9}, []int{225, 459, 603, 284, 828, 890, 6, 777}, []int{4, 0, 5, 2, 3, 1}, 1806182},
		{0, [3]uint64{3626764237, 1654615998, 3255389356}, [3]int{8056020, 1679215, 5343902}, 562492388602,
			7469716379221213669, "4da5e709-d471-4d60-88a7-0639eb1167b3", []int{30, 22, 37, 13}, []int{1}, []int{0},
			[]int{2, 1, 4, 7, 5, 6, 8}, []int{317, 101, 747, 75, 920, 870, 700, 338}, []int{5, 2, 1, 0, 4, 3}, 2652450},
		{1<<32 + 5, [3]uint64{675479763, 2085189291, 1213270837}, [3]int{1243663, 6957022, 3874259}, 1047016835254,
			15231314642590465354, "baf5d2d9-7eeb-4dc7-b955-e288a9b20b21", []int{22, 15, 20, 12}, []int{1}, []int{0},
			[]int{7, 2, 6, 4, 0, 5, 8}, []int{193, 710, 638, 293, 950, 587, 891, 309}, []int{0, 5, 2, 1, 4, 3}, 185605},
		{1<<64 - 1, [3]uint64{93740670, 1068495656, 1452108352}, [3]int{4556224, 8651482, 2594129}, 991792005364,
			14166965630497767659, "0dea1a19-be16-41ab-b20f-49e8bb6bb8b3", []int{12, 34, 30, 5}, []int{2}, []int{0},
			[]int{4, 9, 0, 2, 6, 5, 8}, []int{629, 510, 382, 794, 145, 362, 545, 244}, []int{3, 4, 0, 2, 5, 1}, 3948728},
	}
	for _, g := range cases {
		r := newPyRandom(g.seed)
		for i := range 3 {
			require.Equal(t, g.bits32[i], r.getrandbits(32), "seed %d", g.seed)
		}
		for i := range 3 {
			require.Equal(t, g.ints[i], r.randint(1_000_000, 9_999_999), "seed %d", g.seed)
		}
		require.Equal(t, g.bits40, r.getrandbits(40), "seed %d", g.seed)
		require.Equal(t, g.bits64, r.getrandbits(64), "seed %d", g.seed)
		require.Equal(t, g.uuid, r.uuid4(), "seed %d", g.seed)
		require.Equal(t, g.sample40, r.sample(40, 4), "seed %d", g.seed)
		require.Equal(t, g.sample4, r.sample(4, 1), "seed %d", g.seed)
		require.Equal(t, g.sample1, r.sample(1, 1), "seed %d", g.seed)
		require.Equal(t, g.sample10, r.sample(10, 7), "seed %d", g.seed)
		require.Equal(t, g.sample1k, r.sample(1000, 8), "seed %d", g.seed)
		l := []int{0, 1, 2, 3, 4, 5}
		r.shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
		require.Equal(t, g.shuffled, l, "seed %d", g.seed)
		require.Equal(t, g.randbelow, r.randbelow(6182000), "seed %d", g.seed)
	}
}
