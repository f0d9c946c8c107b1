extension SynthCommand {
    /// `periphery synth --help`.
    static let help = """
        USAGE: periphery synth --frames N --seed S --out DIR [--sequence --fps F] [--width W --height H]
                               [--pitch DEG --yaw DEG --roll DEG --height-m M] [--blur SIGMA] [--near-two-wheelers N]
                               [--world basic|structured]
                               [--kitti] [--cityscapes3d] [--network-inputs]
                               [--scenario NAME [--ego-speed M/S] [--lead-speed M/S] [--gap M] [--lead-decel M/S2]]

        Renders N independent frames of procedurally generated road scenes (deterministic in S) and
        writes DIR/images/NNNNNN.png, DIR/calibration/NNNNNN.json and DIR/labels/NNNNNN.json (the visible
        vehicles as vehicle-frame boxes with visible pixels, occlusion and truncation). The camera's
        focal length and the mount are drawn per frame unless the mount options fix them; the truth is
        always written out. DIR/synth.json records the command (without --out), by which the trainer
        names the data in the weights it writes.

        With --sequence, the frames are one drive at F frames/s instead: a road with curves, traffic
        that moves, bumps that pitch the body, one camera and mount for the whole drive, and the
        reference drive layout beside the frames (frames.csv, motion.csv with a noisy, biased gyro,
        location.csv, calibration.json) plus truth.json; labels then carry each vehicle's "id".
        `periphery run DIR` and `periphery eval --data DIR` both read the result.

        With --sequence --scenario, a lead vehicle follows a script on a straight road while the ego
        holds its lane at constant speed; truth.json adds the scenario, the lead's "lead_id", the ego's
        front bumper "ego_front_m" and per frame the true in-path lead (range, closing speed and
        acceleration, TTC, headway). The drive ends before the lead's range falls to 0.5 m, or after N
        frames. Defaults of lvs, lvd and lvm are NHTSA's NCAP forward collision warning test (2013):
          lvs        ego 20.1168 m/s (45 mph); lead stopped 55 m ahead
          lvd        ego and lead 20.1168 m/s, 30 m apart; after 3 s the lead brakes at
                     2.943 m/s² (0.3 g) to a stop
          lvm        ego 20.1168 m/s; lead 8.9408 m/s (20 mph), 55 m ahead
          cut-in     ego 20.1168 m/s; lead 17.8816 m/s (40 mph) moves in from the adjacent lane
                     from 2 s to 5 s, then 12 m ahead
          following  ego 20.1168 m/s; lead at the ego's speed, 0.6 s ahead (12.07 m)
          free       the drive of the seed without --scenario, plus the truth
        Options each takes: lvs and following --ego-speed --gap; lvm and cut-in --ego-speed
        --lead-speed --gap; lvd all four; free none.

        OPTIONS:
          --frames N        frames to render
          --seed S          scene seed (frame i uses scene seed S·1000003 + i)
          --out DIR         output directory
          --width W         frame width (default 640)
          --height H        frame height (default 400)
          --pitch DEG       fix the mount pitch (nose up positive)
          --yaw DEG         fix the mount yaw (left positive)
          --roll DEG        fix the mount roll
          --height-m M      fix the camera height above the road
          --sequence        render one drive instead of independent frames
          --fps F           frame rate of the drive (default 10)
          --blur SIGMA      Gaussian blur of this many pixels on every frame (default 0, none)
          --near-two-wheelers N
                            place N two-wheelers in the lanes 5.5-10.5 m ahead of every scene
                            before its other traffic (training data for the near field; default 0)
          --world W         basic (default): simple solids under Lambert light; structured: the same
                            road and traffic among barriers, guard rails, sidewalks, signs, gantries,
                            trees with cast shadows, walls, pedestrians and clutter, on a worn road,
                            through a camera with hood, glare, blur, lens distortion, noise and JPEG
                            (single frames only)
          --kitti           also write the KITTI object layout (image_2/, label_2/, calib/, mount.json)
          --cityscapes3d    also write the Cityscapes 3D layout (leftImg8bit/, camera/, gtBbox3d/)
          --network-inputs  also write DIR/network/NNNNNN.bin, the engine's network input and
                            ProjectionLUT for the frame (what periphery-train reads)
          --scenario NAME   with --sequence: lvs, lvd, lvm, cut-in, following or free (above)
          --ego-speed M/S   the ego's speed (1-70)
          --lead-speed M/S  the lead's speed at the start (0-70; cut-in 2-70)
          --gap M           the lead's range at the start, from the ego's front bumper (1-200; cut-in:
                            once it is in the lane; following: default 0.6 s x the ego's speed)
          --lead-decel M/S2 the lead's braking (0.1-12)
          --help            show this help
        """
}
