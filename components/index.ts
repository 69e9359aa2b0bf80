export * from './store';
export * from './Bone';
export * from './Joint';
export * from './AngularLimit';
export * from './ControlPoint';
export * from './Rig';
