package trace

// PlanStart is plan_start (tools.md PLAN-8): the authored DAG, before
// validation.
type PlanStart struct {
	Turn      int             `json:"turn"`
	TaskID    string          `json:"task_id"`
	PlanID    string          `json:"plan_id"`
	File      string          `json:"file"`
	StepCount int             `json:"step_count"`
	Steps     []PlanStartStep `json:"steps"`
}

// PlanStartStep is one step of plan_start.steps; step_id is null when the
// plan gave none.
type PlanStartStep struct {
	StepID       *string  `json:"step_id"`
	Kind         string   `json:"kind"` // tool | shell
	DependsOn    []string `json:"depends_on"`
	HasCondition bool     `json:"has_condition"`
}

// PlanStepStart is plan_step_start (PLAN-8): one per dispatch.
type PlanStepStart struct {
	Turn      int      `json:"turn"`
	TaskID    string   `json:"task_id"`
	PlanID    string   `json:"plan_id"`
	StepID    string   `json:"step_id"`
	Kind      string   `json:"kind"`
	DependsOn []string `json:"depends_on"`
	Attempt   int      `json:"attempt"`
}

// PlanStep is plan_step (PLAN-8): one per settled step.
type PlanStep struct {
	Turn       int     `json:"turn"`
	TaskID     string  `json:"task_id"`
	PlanID     string  `json:"plan_id"`
	StepID     string  `json:"step_id"`
	Kind       string  `json:"kind"`
	Status     string  `json:"status"`
	Attempts   int     `json:"attempts"`
	DurationMS int64   `json:"duration_ms"`
	Error      *string `json:"error"`
}

// PlanEnd is plan_end (PLAN-8); failed_step is "plan" for a plan refused
// before any step ran.
type PlanEnd struct {
	Turn           int     `json:"turn"`
	TaskID         string  `json:"task_id"`
	PlanID         string  `json:"plan_id"`
	Outcome        string  `json:"outcome"` // completed | failed | canceled
	FailedStep     *string `json:"failed_step"`
	StepsTotal     int     `json:"steps_total"`
	StepsSucceeded int     `json:"steps_succeeded"`
	StepsFailed    int     `json:"steps_failed"`
	StepsSkipped   int     `json:"steps_skipped"`
	DurationMS     int64   `json:"duration_ms"`
	Reason         *string `json:"reason"`
}

func (PlanStart) EventType() string     { return "plan_start" }
func (PlanStepStart) EventType() string { return "plan_step_start" }
func (PlanStep) EventType() string      { return "plan_step" }
func (PlanEnd) EventType() string       { return "plan_end" }

func (r PlanStart) task() string     { return r.TaskID }
func (r PlanStepStart) task() string { return r.TaskID }
func (r PlanStep) task() string      { return r.TaskID }
func (r PlanEnd) task() string       { return r.TaskID }
