// Built by scripts/build-hotwire-fixture.sh with esbuild 0.17.0: @hotwired/hotwire-native-bridge
// 1.0.0 (src/index.js) as a classic script: it creates window.Strada.web when it runs; licences: LICENSE.*
(() => {
  var __defProp = Object.defineProperty;
  var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
  var __publicField = (obj, key, value) => {
    __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);
    return value;
  };
  var __accessCheck = (obj, member, msg) => {
    if (!member.has(obj))
      throw TypeError("Cannot " + msg);
  };
  var __privateGet = (obj, member, getter) => {
    __accessCheck(obj, member, "read from private field");
    return getter ? getter.call(obj) : member.get(obj);
  };
  var __privateAdd = (obj, member, value) => {
    if (member.has(obj))
      throw TypeError("Cannot add the same private member more than once");
    member instanceof WeakSet ? member.add(obj) : member.set(obj, value);
  };
  var __privateSet = (obj, member, value, setter) => {
    __accessCheck(obj, member, "write to private field");
    setter ? setter.call(obj, value) : member.set(obj, value);
    return value;
  };
  var __privateWrapper = (obj, member, setter, getter) => ({
    set _(value) {
      __privateSet(obj, member, value, setter);
    },
    get _() {
      return __privateGet(obj, member, getter);
    }
  });
  var __privateMethod = (obj, member, method) => {
    __accessCheck(obj, member, "access private method");
    return method;
  };

  // bridge/src/bridge.js
  var _adapter, _lastMessageId, _pendingMessages, _pendingCallbacks, _savePendingMessage, savePendingMessage_fn, _sendPendingMessages, sendPendingMessages_fn;
  var Bridge = class {
    constructor() {
      __privateAdd(this, _savePendingMessage);
      __privateAdd(this, _sendPendingMessages);
      __privateAdd(this, _adapter, void 0);
      __privateAdd(this, _lastMessageId, void 0);
      __privateAdd(this, _pendingMessages, void 0);
      __privateAdd(this, _pendingCallbacks, void 0);
      __privateSet(this, _adapter, null);
      __privateSet(this, _lastMessageId, 0);
      __privateSet(this, _pendingMessages, []);
      __privateSet(this, _pendingCallbacks, /* @__PURE__ */ new Map());
    }
    start() {
      this.notifyApplicationAfterStart();
    }
    notifyApplicationAfterStart() {
      document.dispatchEvent(new Event("web-bridge:ready"));
    }
    supportsComponent(component) {
      if (__privateGet(this, _adapter)) {
        return __privateGet(this, _adapter).supportsComponent(component);
      } else {
        return false;
      }
    }
    send({ component, event, data, callback }) {
      if (!__privateGet(this, _adapter)) {
        __privateMethod(this, _savePendingMessage, savePendingMessage_fn).call(this, { component, event, data, callback });
        return null;
      }
      if (!this.supportsComponent(component))
        return null;
      const id = this.generateMessageId();
      const message = { id, component, event, data: data || {} };
      __privateGet(this, _adapter).receive(message);
      if (callback) {
        __privateGet(this, _pendingCallbacks).set(id, callback);
      }
      return id;
    }
    receive(message) {
      this.executeCallbackFor(message);
    }
    executeCallbackFor(message) {
      const callback = __privateGet(this, _pendingCallbacks).get(message.id);
      if (callback) {
        callback(message);
      }
    }
    removeCallbackFor(messageId) {
      if (__privateGet(this, _pendingCallbacks).has(messageId)) {
        __privateGet(this, _pendingCallbacks).delete(messageId);
      }
    }
    removePendingMessagesFor(component) {
      __privateSet(this, _pendingMessages, __privateGet(this, _pendingMessages).filter((message) => message.component != component));
    }
    generateMessageId() {
      const id = ++__privateWrapper(this, _lastMessageId)._;
      return id.toString();
    }
    setAdapter(adapter) {
      __privateSet(this, _adapter, adapter);
      document.documentElement.dataset.bridgePlatform = __privateGet(this, _adapter).platform;
      this.adapterDidUpdateSupportedComponents();
      __privateMethod(this, _sendPendingMessages, sendPendingMessages_fn).call(this);
    }
    adapterDidUpdateSupportedComponents() {
      if (__privateGet(this, _adapter)) {
        document.documentElement.dataset.bridgeComponents = __privateGet(this, _adapter).supportedComponents.join(" ");
      }
    }
  };
  _adapter = new WeakMap();
  _lastMessageId = new WeakMap();
  _pendingMessages = new WeakMap();
  _pendingCallbacks = new WeakMap();
  _savePendingMessage = new WeakSet();
  savePendingMessage_fn = function(message) {
    __privateGet(this, _pendingMessages).push(message);
  };
  _sendPendingMessages = new WeakSet();
  sendPendingMessages_fn = function() {
    __privateGet(this, _pendingMessages).forEach((message) => this.send(message));
    __privateSet(this, _pendingMessages, []);
  };

  // stimulus/src/core/string_helpers.ts
  function camelize(value) {
    return value.replace(/(?:[_-])([a-z0-9])/g, (_, char) => char.toUpperCase());
  }
  function namespaceCamelize(value) {
    return camelize(value.replace(/--/g, "-").replace(/__/g, "_"));
  }
  function capitalize(value) {
    return value.charAt(0).toUpperCase() + value.slice(1);
  }
  function dasherize(value) {
    return value.replace(/([A-Z])/g, (_, char) => `-${char.toLowerCase()}`);
  }

  // stimulus/src/core/utils.ts
  function isSomething(object) {
    return object !== null && object !== void 0;
  }
  function hasProperty(object, property) {
    return Object.prototype.hasOwnProperty.call(object, property);
  }

  // stimulus/src/core/inheritable_statics.ts
  function readInheritableStaticArrayValues(constructor, propertyName) {
    const ancestors = getAncestorsForConstructor(constructor);
    return Array.from(
      ancestors.reduce((values, constructor2) => {
        getOwnStaticArrayValues(constructor2, propertyName).forEach((name) => values.add(name));
        return values;
      }, /* @__PURE__ */ new Set())
    );
  }
  function readInheritableStaticObjectPairs(constructor, propertyName) {
    const ancestors = getAncestorsForConstructor(constructor);
    return ancestors.reduce((pairs, constructor2) => {
      pairs.push(...getOwnStaticObjectPairs(constructor2, propertyName));
      return pairs;
    }, []);
  }
  function getAncestorsForConstructor(constructor) {
    const ancestors = [];
    while (constructor) {
      ancestors.push(constructor);
      constructor = Object.getPrototypeOf(constructor);
    }
    return ancestors.reverse();
  }
  function getOwnStaticArrayValues(constructor, propertyName) {
    const definition = constructor[propertyName];
    return Array.isArray(definition) ? definition : [];
  }
  function getOwnStaticObjectPairs(constructor, propertyName) {
    const definition = constructor[propertyName];
    return definition ? Object.keys(definition).map((key) => [key, definition[key]]) : [];
  }

  // stimulus/src/core/blessing.ts
  var getOwnKeys = (() => {
    if (typeof Object.getOwnPropertySymbols == "function") {
      return (object) => [...Object.getOwnPropertyNames(object), ...Object.getOwnPropertySymbols(object)];
    } else {
      return Object.getOwnPropertyNames;
    }
  })();
  var extend = (() => {
    function extendWithReflect(constructor) {
      function extended() {
        return Reflect.construct(constructor, arguments, new.target);
      }
      extended.prototype = Object.create(constructor.prototype, {
        constructor: { value: extended }
      });
      Reflect.setPrototypeOf(extended, constructor);
      return extended;
    }
    function testReflectExtension() {
      const a = function() {
        this.a.call(this);
      };
      const b = extendWithReflect(a);
      b.prototype.a = function() {
      };
      return new b();
    }
    try {
      testReflectExtension();
      return extendWithReflect;
    } catch (error) {
      return (constructor) => class extended extends constructor {
      };
    }
  })();

  // stimulus/src/core/schema.ts
  var defaultSchema = {
    controllerAttribute: "data-controller",
    actionAttribute: "data-action",
    targetAttribute: "data-target",
    targetAttributeForScope: (identifier) => `data-${identifier}-target`,
    outletAttributeForScope: (identifier, outlet) => `data-${identifier}-${outlet}-outlet`,
    keyMappings: {
      enter: "Enter",
      tab: "Tab",
      esc: "Escape",
      space: " ",
      up: "ArrowUp",
      down: "ArrowDown",
      left: "ArrowLeft",
      right: "ArrowRight",
      home: "Home",
      end: "End",
      page_up: "PageUp",
      page_down: "PageDown",
      // [a-z]
      ...objectFromEntries("abcdefghijklmnopqrstuvwxyz".split("").map((c) => [c, c])),
      // [0-9]
      ...objectFromEntries("0123456789".split("").map((n) => [n, n]))
    }
  };
  function objectFromEntries(array) {
    return array.reduce((memo, [k, v]) => ({ ...memo, [k]: v }), {});
  }

  // stimulus/src/core/class_properties.ts
  function ClassPropertiesBlessing(constructor) {
    const classes = readInheritableStaticArrayValues(constructor, "classes");
    return classes.reduce((properties, classDefinition) => {
      return Object.assign(properties, propertiesForClassDefinition(classDefinition));
    }, {});
  }
  function propertiesForClassDefinition(key) {
    return {
      [`${key}Class`]: {
        get() {
          const { classes } = this;
          if (classes.has(key)) {
            return classes.get(key);
          } else {
            const attribute = classes.getAttributeName(key);
            throw new Error(`Missing attribute "${attribute}"`);
          }
        }
      },
      [`${key}Classes`]: {
        get() {
          return this.classes.getAll(key);
        }
      },
      [`has${capitalize(key)}Class`]: {
        get() {
          return this.classes.has(key);
        }
      }
    };
  }

  // stimulus/src/core/outlet_properties.ts
  function OutletPropertiesBlessing(constructor) {
    const outlets = readInheritableStaticArrayValues(constructor, "outlets");
    return outlets.reduce((properties, outletDefinition) => {
      return Object.assign(properties, propertiesForOutletDefinition(outletDefinition));
    }, {});
  }
  function getOutletController(controller, element, identifier) {
    return controller.application.getControllerForElementAndIdentifier(element, identifier);
  }
  function getControllerAndEnsureConnectedScope(controller, element, outletName) {
    let outletController = getOutletController(controller, element, outletName);
    if (outletController)
      return outletController;
    controller.application.router.proposeToConnectScopeForElementAndIdentifier(element, outletName);
    outletController = getOutletController(controller, element, outletName);
    if (outletController)
      return outletController;
  }
  function propertiesForOutletDefinition(name) {
    const camelizedName = namespaceCamelize(name);
    return {
      [`${camelizedName}Outlet`]: {
        get() {
          const outletElement = this.outlets.find(name);
          const selector = this.outlets.getSelectorForOutletName(name);
          if (outletElement) {
            const outletController = getControllerAndEnsureConnectedScope(this, outletElement, name);
            if (outletController)
              return outletController;
            throw new Error(
              `The provided outlet element is missing an outlet controller "${name}" instance for host controller "${this.identifier}"`
            );
          }
          throw new Error(
            `Missing outlet element "${name}" for host controller "${this.identifier}". Stimulus couldn't find a matching outlet element using selector "${selector}".`
          );
        }
      },
      [`${camelizedName}Outlets`]: {
        get() {
          const outlets = this.outlets.findAll(name);
          if (outlets.length > 0) {
            return outlets.map((outletElement) => {
              const outletController = getControllerAndEnsureConnectedScope(this, outletElement, name);
              if (outletController)
                return outletController;
              console.warn(
                `The provided outlet element is missing an outlet controller "${name}" instance for host controller "${this.identifier}"`,
                outletElement
              );
            }).filter((controller) => controller);
          }
          return [];
        }
      },
      [`${camelizedName}OutletElement`]: {
        get() {
          const outletElement = this.outlets.find(name);
          const selector = this.outlets.getSelectorForOutletName(name);
          if (outletElement) {
            return outletElement;
          } else {
            throw new Error(
              `Missing outlet element "${name}" for host controller "${this.identifier}". Stimulus couldn't find a matching outlet element using selector "${selector}".`
            );
          }
        }
      },
      [`${camelizedName}OutletElements`]: {
        get() {
          return this.outlets.findAll(name);
        }
      },
      [`has${capitalize(camelizedName)}Outlet`]: {
        get() {
          return this.outlets.has(name);
        }
      }
    };
  }

  // stimulus/src/core/target_properties.ts
  function TargetPropertiesBlessing(constructor) {
    const targets = readInheritableStaticArrayValues(constructor, "targets");
    return targets.reduce((properties, targetDefinition) => {
      return Object.assign(properties, propertiesForTargetDefinition(targetDefinition));
    }, {});
  }
  function propertiesForTargetDefinition(name) {
    return {
      [`${name}Target`]: {
        get() {
          const target = this.targets.find(name);
          if (target) {
            return target;
          } else {
            throw new Error(`Missing target element "${name}" for "${this.identifier}" controller`);
          }
        }
      },
      [`${name}Targets`]: {
        get() {
          return this.targets.findAll(name);
        }
      },
      [`has${capitalize(name)}Target`]: {
        get() {
          return this.targets.has(name);
        }
      }
    };
  }

  // stimulus/src/core/value_properties.ts
  function ValuePropertiesBlessing(constructor) {
    const valueDefinitionPairs = readInheritableStaticObjectPairs(constructor, "values");
    const propertyDescriptorMap = {
      valueDescriptorMap: {
        get() {
          return valueDefinitionPairs.reduce((result, valueDefinitionPair) => {
            const valueDescriptor = parseValueDefinitionPair(valueDefinitionPair, this.identifier);
            const attributeName = this.data.getAttributeNameForKey(valueDescriptor.key);
            return Object.assign(result, { [attributeName]: valueDescriptor });
          }, {});
        }
      }
    };
    return valueDefinitionPairs.reduce((properties, valueDefinitionPair) => {
      return Object.assign(properties, propertiesForValueDefinitionPair(valueDefinitionPair));
    }, propertyDescriptorMap);
  }
  function propertiesForValueDefinitionPair(valueDefinitionPair, controller) {
    const definition = parseValueDefinitionPair(valueDefinitionPair, controller);
    const { key, name, reader: read, writer: write } = definition;
    return {
      [name]: {
        get() {
          const value = this.data.get(key);
          if (value !== null) {
            return read(value);
          } else {
            return definition.defaultValue;
          }
        },
        set(value) {
          if (value === void 0) {
            this.data.delete(key);
          } else {
            this.data.set(key, write(value));
          }
        }
      },
      [`has${capitalize(name)}`]: {
        get() {
          return this.data.has(key) || definition.hasCustomDefaultValue;
        }
      }
    };
  }
  function parseValueDefinitionPair([token, typeDefinition], controller) {
    return valueDescriptorForTokenAndTypeDefinition({
      controller,
      token,
      typeDefinition
    });
  }
  function parseValueTypeConstant(constant) {
    switch (constant) {
      case Array:
        return "array";
      case Boolean:
        return "boolean";
      case Number:
        return "number";
      case Object:
        return "object";
      case String:
        return "string";
    }
  }
  function parseValueTypeDefault(defaultValue) {
    switch (typeof defaultValue) {
      case "boolean":
        return "boolean";
      case "number":
        return "number";
      case "string":
        return "string";
    }
    if (Array.isArray(defaultValue))
      return "array";
    if (Object.prototype.toString.call(defaultValue) === "[object Object]")
      return "object";
  }
  function parseValueTypeObject(payload) {
    const { controller, token, typeObject } = payload;
    const hasType = isSomething(typeObject.type);
    const hasDefault = isSomething(typeObject.default);
    const fullObject = hasType && hasDefault;
    const onlyType = hasType && !hasDefault;
    const onlyDefault = !hasType && hasDefault;
    const typeFromObject = parseValueTypeConstant(typeObject.type);
    const typeFromDefaultValue = parseValueTypeDefault(payload.typeObject.default);
    if (onlyType)
      return typeFromObject;
    if (onlyDefault)
      return typeFromDefaultValue;
    if (typeFromObject !== typeFromDefaultValue) {
      const propertyPath = controller ? `${controller}.${token}` : token;
      throw new Error(
        `The specified default value for the Stimulus Value "${propertyPath}" must match the defined type "${typeFromObject}". The provided default value of "${typeObject.default}" is of type "${typeFromDefaultValue}".`
      );
    }
    if (fullObject)
      return typeFromObject;
  }
  function parseValueTypeDefinition(payload) {
    const { controller, token, typeDefinition } = payload;
    const typeObject = { controller, token, typeObject: typeDefinition };
    const typeFromObject = parseValueTypeObject(typeObject);
    const typeFromDefaultValue = parseValueTypeDefault(typeDefinition);
    const typeFromConstant = parseValueTypeConstant(typeDefinition);
    const type = typeFromObject || typeFromDefaultValue || typeFromConstant;
    if (type)
      return type;
    const propertyPath = controller ? `${controller}.${typeDefinition}` : token;
    throw new Error(`Unknown value type "${propertyPath}" for "${token}" value`);
  }
  function defaultValueForDefinition(typeDefinition) {
    const constant = parseValueTypeConstant(typeDefinition);
    if (constant)
      return defaultValuesByType[constant];
    const hasDefault = hasProperty(typeDefinition, "default");
    const hasType = hasProperty(typeDefinition, "type");
    const typeObject = typeDefinition;
    if (hasDefault)
      return typeObject.default;
    if (hasType) {
      const { type } = typeObject;
      const constantFromType = parseValueTypeConstant(type);
      if (constantFromType)
        return defaultValuesByType[constantFromType];
    }
    return typeDefinition;
  }
  function valueDescriptorForTokenAndTypeDefinition(payload) {
    const { token, typeDefinition } = payload;
    const key = `${dasherize(token)}-value`;
    const type = parseValueTypeDefinition(payload);
    return {
      type,
      key,
      name: camelize(key),
      get defaultValue() {
        return defaultValueForDefinition(typeDefinition);
      },
      get hasCustomDefaultValue() {
        return parseValueTypeDefault(typeDefinition) !== void 0;
      },
      reader: readers[type],
      writer: writers[type] || writers.default
    };
  }
  var defaultValuesByType = {
    get array() {
      return [];
    },
    boolean: false,
    number: 0,
    get object() {
      return {};
    },
    string: ""
  };
  var readers = {
    array(value) {
      const array = JSON.parse(value);
      if (!Array.isArray(array)) {
        throw new TypeError(
          `expected value of type "array" but instead got value "${value}" of type "${parseValueTypeDefault(array)}"`
        );
      }
      return array;
    },
    boolean(value) {
      return !(value == "0" || String(value).toLowerCase() == "false");
    },
    number(value) {
      return Number(value.replace(/_/g, ""));
    },
    object(value) {
      const object = JSON.parse(value);
      if (object === null || typeof object != "object" || Array.isArray(object)) {
        throw new TypeError(
          `expected value of type "object" but instead got value "${value}" of type "${parseValueTypeDefault(object)}"`
        );
      }
      return object;
    },
    string(value) {
      return value;
    }
  };
  var writers = {
    default: writeString,
    array: writeJSON,
    object: writeJSON
  };
  function writeJSON(value) {
    return JSON.stringify(value);
  }
  function writeString(value) {
    return `${value}`;
  }

  // stimulus/src/core/controller.ts
  var Controller = class {
    static get shouldLoad() {
      return true;
    }
    static afterLoad(_identifier, _application) {
      return;
    }
    constructor(context) {
      this.context = context;
    }
    get application() {
      return this.context.application;
    }
    get scope() {
      return this.context.scope;
    }
    get element() {
      return this.scope.element;
    }
    get identifier() {
      return this.scope.identifier;
    }
    get targets() {
      return this.scope.targets;
    }
    get outlets() {
      return this.scope.outlets;
    }
    get classes() {
      return this.scope.classes;
    }
    get data() {
      return this.scope.data;
    }
    initialize() {
    }
    connect() {
    }
    disconnect() {
    }
    dispatch(eventName, {
      target = this.element,
      detail = {},
      prefix = this.identifier,
      bubbles = true,
      cancelable = true
    } = {}) {
      const type = prefix ? `${prefix}:${eventName}` : eventName;
      const event = new CustomEvent(type, { detail, bubbles, cancelable });
      target.dispatchEvent(event);
      return event;
    }
  };
  Controller.blessings = [
    ClassPropertiesBlessing,
    TargetPropertiesBlessing,
    ValuePropertiesBlessing,
    OutletPropertiesBlessing
  ];
  Controller.targets = [];
  Controller.outlets = [];
  Controller.values = {};

  // bridge/src/bridge_element.js
  var BridgeElement = class {
    constructor(element) {
      this.element = element;
    }
    get title() {
      return (this.bridgeAttribute("title") || this.attribute("aria-label") || this.element.textContent || this.element.value).trim();
    }
    get enabled() {
      return !this.disabled;
    }
    get disabled() {
      const disabled = this.bridgeAttribute("disabled");
      return disabled === "true" || disabled === this.platform;
    }
    enableForComponent(component) {
      if (component.enabled) {
        this.removeBridgeAttribute("disabled");
      }
    }
    hasClass(className) {
      return this.element.classList.contains(className);
    }
    attribute(name) {
      return this.element.getAttribute(name);
    }
    bridgeAttribute(name) {
      return this.attribute(`data-bridge-${name}`);
    }
    setBridgeAttribute(name, value) {
      this.element.setAttribute(`data-bridge-${name}`, value);
    }
    removeBridgeAttribute(name) {
      this.element.removeAttribute(`data-bridge-${name}`);
    }
    click() {
      if (this.platform == "android") {
        this.element.removeAttribute("target");
      }
      this.element.click();
    }
    get platform() {
      return document.documentElement.dataset.bridgePlatform;
    }
  };

  // bridge/src/helpers/user_agent.js
  var { userAgent } = window.navigator;
  var isHotwireNativeApp = /bridge-components: \[.+\]/.test(userAgent);

  // bridge/src/bridge_component.js
  var BridgeComponent = class extends Controller {
    constructor() {
      super(...arguments);
      __publicField(this, "pendingMessageCallbacks", []);
    }
    static get shouldLoad() {
      return isHotwireNativeApp;
    }
    initialize() {
      this.pendingMessageCallbacks = [];
    }
    connect() {
    }
    disconnect() {
      this.removePendingCallbacks();
      this.removePendingMessages();
    }
    get component() {
      return this.constructor.component;
    }
    get platformOptingOut() {
      const { bridgePlatform } = document.documentElement.dataset;
      return this.identifier == this.element.getAttribute(`data-controller-optout-${bridgePlatform}`);
    }
    get enabled() {
      return !this.platformOptingOut && this.bridge.supportsComponent(this.component);
    }
    send(event, data = {}, callback) {
      data.metadata = {
        url: window.location.href
      };
      const message = { component: this.component, event, data, callback };
      const messageId = this.bridge.send(message);
      if (callback) {
        this.pendingMessageCallbacks.push(messageId);
      }
    }
    removePendingCallbacks() {
      this.pendingMessageCallbacks.forEach((messageId) => this.bridge.removeCallbackFor(messageId));
    }
    removePendingMessages() {
      this.bridge.removePendingMessagesFor(this.component);
    }
    get bridgeElement() {
      return new BridgeElement(this.element);
    }
    get bridge() {
      return window.Strada.web;
    }
  };
  __publicField(BridgeComponent, "component", "");

  // bridge/src/index.js
  if (!window.Strada) {
    const webBridge = new Bridge();
    window.Strada = { web: webBridge };
    webBridge.start();
  }
})();
