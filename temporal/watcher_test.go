package temporal

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/converter"
)

// history builds the events of a runs workflow's history.
type history struct {
	t      *testing.T
	events []*historypb.HistoryEvent
}

func (h *history) payloads(v any) *commonpb.Payloads {
	p, err := converter.GetDefaultDataConverter().ToPayloads(v)
	require.NoError(h.t, err)
	return p
}

func (h *history) add(e *historypb.HistoryEvent) int64 {
	e.EventId = int64(len(h.events) + 1)
	h.events = append(h.events, e)
	return e.EventId
}

func (h *history) signal(key, request string) {
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionSignaledEventAttributes{WorkflowExecutionSignaledEventAttributes: &historypb.WorkflowExecutionSignaledEventAttributes{
			SignalName: RunSignal, Input: h.payloads(RunRequest{Run: planned(key), Request: request})}}})
}

func (h *history) schedule(key string) int64 {
	return h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
		Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
			ActivityId: key, Input: h.payloads(planned(key))}}})
}

func (h *history) complete(sched int64, runID string) {
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
		Attributes: &historypb.HistoryEvent_ActivityTaskCompletedEventAttributes{ActivityTaskCompletedEventAttributes: &historypb.ActivityTaskCompletedEventAttributes{
			ScheduledEventId: sched, Result: h.payloads(RunSummary{RunID: runID})}}})
}

func (h *history) cancel(sched int64, runID string) {
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCELED,
		Attributes: &historypb.HistoryEvent_ActivityTaskCanceledEventAttributes{ActivityTaskCanceledEventAttributes: &historypb.ActivityTaskCanceledEventAttributes{
			ScheduledEventId: sched, Details: h.payloads(RunSummary{RunID: runID, ExitReason: "cancelled"})}}})
}

// answered returns the outcome of request id once the watcher read the
// history, or nil when it is still waiting.
func answered(w *watcher, id string) *outcome {
	s := w.slot(id)
	select {
	case <-s.ch:
		return &s.out
	default:
		return nil
	}
}

func TestTheWatcherAnswersEachRequestWithTheRunTheWorkflowChose(t *testing.T) {
	h := &history{t: t}
	h.signal("k", "r1")
	s1 := h.schedule("k")
	h.signal("k", "r2") // asked again while it runs: the same run answers
	h.cancel(s1, "c/d/1")
	h.signal("k", "r3") // asked after a cancelled run: the next run answers
	s2 := h.schedule("k")
	h.complete(s2, "c/d/2")
	h.signal("k", "r4") // asked after a run with its record: that run answers

	w := &watcher{slots: map[string]*slot{}}
	keys := map[int64]string{}
	for _, e := range h.events {
		_, closed := w.event(e, keys)
		require.False(t, closed)
	}
	for id, want := range map[string]string{"r1": "c/d/1", "r2": "c/d/1", "r3": "c/d/2", "r4": "c/d/2"} {
		got := answered(w, id)
		require.NotNil(t, got, id)
		require.NotNil(t, got.sum, id)
		assert.Equal(t, want, got.sum.RunID, id)
		assert.Equal(t, want == "c/d/1", got.cancelled, id)
	}
	h.signal("k2", "r5")
	_, _ = w.event(h.events[len(h.events)-1], keys)
	assert.Nil(t, answered(w, "r5"), "a request waits for its run")
}

func TestAWatcherOfAContinuedWorkflowAnswersWithWhatItWasHanded(t *testing.T) {
	h := &history{t: t}
	h.add(&historypb.HistoryEvent{EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
			Input: h.payloads(Params{Done: []KeyRecord{{Key: "k", Runs: 1, Last: &Outcome{Summary: &RunSummary{RunID: "c/d/9"}}}}})}}})
	h.signal("k", "r1")
	w := &watcher{slots: map[string]*slot{}}
	keys := map[int64]string{}
	for _, e := range h.events {
		_, _ = w.event(e, keys)
	}
	got := answered(w, "r1")
	require.NotNil(t, got)
	assert.Equal(t, "c/d/9", got.sum.RunID)
}
