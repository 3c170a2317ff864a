package schedule

import "github.com/oryx-go/oryx/oryx"

// The tests' one-line shorthands for ParseSpec followed by one of the parsed spec's methods.

func parseSchedule(spec string, b, t int, seed uint64) (*Schedule, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.Schedule(b, t, seed)
}

func parseScheduleRows(spec string, lengths []int, seed uint64) (*Schedule, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return s.ScheduleRows(lengths, seed)
}

func checkSpec(spec string) error {
	_, err := ParseSpec(spec)
	return err
}

func checkDecodeSpec(spec string) error {
	_, err := ParseSpec(spec, ForDecoding)
	return err
}

func decodeMode(spec string, pos, promptLen int) (oryx.Mode, error) {
	s, err := ParseSpec(spec)
	if err != nil {
		return oryx.Linear, err
	}
	return s.DecodeMode(pos, promptLen)
}
