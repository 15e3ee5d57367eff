package compare

import (
	"maps"
	"slices"

	"github.com/luxeval/lux/record"
)

// CaseMeans reduces the runs of one side to per-case means of metric, as
// a suite comparison does before it pairs cases: a case's mean over its
// runs, and only cases that have the metric in every run. It returns the
// case ids (sorted), their cluster labels ("" for a case of its own) and
// their means, ready for stats.Mean. metric is a name of record.RunMetrics
// or MetricPassRate or MetricScore.
func CaseMeans(samples []record.Sample, metric string) (ids, clusters []string, means []float64, err error) {
	sd := newSide("A")
	for i := range samples {
		if err := sd.add(&samples[i], samples[i].RunDir); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, id := range slices.Sorted(maps.Keys(sd.cases)) {
		c := sd.cases[id]
		if v, ok := sd.mean(c, metric); ok {
			ids, clusters, means = append(ids, id), append(clusters, c.cluster), append(means, v)
		}
	}
	return ids, clusters, means, nil
}
