/**
 * The process's scheduling clock (issue 40 point 5, issue 41 point 6; Stripe's "test clocks" idea):
 * the base clock (the system's, or a test's) shifted by an offset the sandbox sets. Every scheduler
 * (recurring plans, contract period closes) reads this one clock, so moving it moves them together.
 * Emission's own date rules stay real (fechaEmision at most 60 days ahead, BRIEF 2.1; CAE validity).
 */
export function createShiftableClock(base: () => Date = () => new Date()) {
  let offsetMs = 0;
  return {
    now: () => new Date(base().getTime() + offsetMs),
    set: (at: Date) => void (offsetMs = at.getTime() - base().getTime()),
    reset: () => void (offsetMs = 0),
    /** Whether the sandbox moved the clock away from its base. */
    shifted: () => offsetMs !== 0,
  };
}
export type ShiftableClock = ReturnType<typeof createShiftableClock>;
