/// Mount yaw from the GPS course against the camera's heading (`docs/reference/calibration-from-motion.md#93-gravity-roll-and-course-yaw`).
///
/// The course is the direction of travel and the heading where the camera points, both clockwise
/// from north, so their difference is the mount yaw (positive left). A fix counts when its course is
/// known (≥ 0) with an accuracy under 5°, and the speed is over 5 m/s; the estimate is the median of
/// the differences, each wrapped to ±180°. It needs a heading in a true-north frame: a magnetic or
/// arbitrary-reference heading gives a constant offset, not the mount.
package enum CourseYaw {
    /// One GPS fix with the camera heading at its time (degrees, clockwise from north).
    package struct Fix: Sendable, Hashable {
        /// GPS course over ground, degrees clockwise from north.
        package var course: Double
        /// Its accuracy, degrees, when the receiver gives one.
        package var courseAccuracy: Double?
        /// Speed over ground, m/s, and the camera heading, degrees clockwise from north.
        package var speed: Double
        package var heading: Double

        /// A fix; a nil accuracy is taken as good enough.
        package init(course: Double, courseAccuracy: Double?, speed: Double, heading: Double) {
            self.course = course
            self.courseAccuracy = courseAccuracy
            self.speed = speed
            self.heading = heading
        }

        /// Whether the fix may be used (the reference's gates).
        package var isUsable: Bool {
            course >= 0 && course.isFinite && heading.isFinite && speed > 5 && speed.isFinite
                && (courseAccuracy.map { $0 >= 0 && $0 < 5 } ?? true)
        }
    }

    /// The median mount yaw of the usable fixes, radians, and how many there were; nil without any.
    package static func estimate(_ fixes: [Fix]) -> (yaw: Double, fixes: Int)? {
        let differences = fixes.filter(\.isUsable).map { fix in
            (fix.course - fix.heading).remainder(dividingBy: 360) * .pi / 180
        }
        guard let median = PitchWindow.median(differences) else { return nil }
        return (median, differences.count)
    }
}
