// The assignment's typed vars as form fields: a select for enums and booleans, text
// otherwise; a var the web may not set shows disabled, saying who sets it.

import { acceptsWeb, type VarSpecs } from '../../lib/vars';

interface Props {
  specs: VarSpecs;
  values: Record<string, string>;
  errors: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
}

export function VarFields({ specs, values, errors, onChange }: Props) {
  return (
    <fieldset class="vars">
      <legend>Variables</legend>
      {Object.entries(specs).map(([name, spec]) => {
        const type = spec.type ?? 'string';
        const web = acceptsWeb(spec);
        const value = values[name] ?? '';
        const onInput = (e: Event) => onChange({ ...values, [name]: (e.currentTarget as HTMLInputElement).value });
        const required = spec.required && spec.default === undefined;
        return (
          <label class={errors[name] ? 'invalid' : ''}>
            <span>
              {name}
              {required ? ' *' : ''} <small class="muted">{type}</small>
            </span>
            {type === 'enum' ? (
              <select name={`var.${name}`} value={value} onChange={onInput} disabled={!web}>
                <option value="">{spec.default !== undefined ? `(default: ${spec.default})` : '(unset)'}</option>
                {(spec.values ?? []).map((v) => (
                  <option value={v}>{v}</option>
                ))}
              </select>
            ) : type === 'boolean' ? (
              <select name={`var.${name}`} value={value} onChange={onInput} disabled={!web}>
                <option value="">{spec.default !== undefined ? `(default: ${spec.default})` : '(unset)'}</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : (
              <input name={`var.${name}`} type="text" inputMode={type === 'number' ? 'decimal' : undefined} value={value} onInput={onInput} disabled={!web} required={required} />
            )}
            <small class="muted">
              {spec.description}
              {!web ? ` (set by ${(spec.sources ?? []).join(', ')} only)` : ''}
            </small>
            {errors[name] && <small class="error-text">{errors[name]}</small>}
          </label>
        );
      })}
    </fieldset>
  );
}
