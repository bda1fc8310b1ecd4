package compare

import "github.com/latgate/latgate/pkg/results"

func findTarget(s Side, name, region string) (results.Target, bool) {
	for _, t := range s.Targets {
		if t.Name == name && t.Region == region {
			return t, true
		}
	}
	return results.Target{}, false
}
