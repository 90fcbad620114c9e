"""Spanish."""
from __future__ import annotations

from .base import MONTH, WEEK, YEAR, Language, frozen, groups, sides, whole_words, words

# Written without accents: values are looked up with the customer's accents removed
# (fold_accents), since many leave them out ("dieciseis", "miercoles").
_NUMBER_FORMS = {
    0: "cero", 1: "uno un una", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis", 7: "siete",
    8: "ocho", 9: "nueve", 10: "diez", 11: "once", 12: "doce", 13: "trece", 14: "catorce", 15: "quince",
    16: "dieciseis", 17: "diecisiete", 18: "dieciocho", 19: "diecinueve", 20: "veinte", 21: "veintiuno",
    22: "veintidos", 23: "veintitres", 24: "veinticuatro", 25: "veinticinco", 26: "veintiseis",
    27: "veintisiete", 28: "veintiocho", 29: "veintinueve", 30: "treinta", 40: "cuarenta",
    50: "cincuenta", 60: "sesenta", 70: "setenta", 80: "ochenta", 90: "noventa", 100: "cien ciento",
    200: "doscientos doscientas", 300: "trescientos trescientas", 400: "cuatrocientos cuatrocientas",
    500: "quinientos quinientas", 600: "seiscientos", 700: "setecientos", 800: "ochocientos",
    900: "novecientos", 1000: "mil", 10**6: "millon millones",
}
_MONTHS = words("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre")
_WEEKDAYS = words("lunes martes miercoles jueves viernes sabado domingo")

LANGUAGE = Language(
    code="es",
    stopwords=words("""
        qué que cuál cuáles quién dónde donde cuándo cuando por porqué cómo como cuánto cuánta
        cuántos cuántas ustedes usted tienen tiene tengo hay son está están ser estar puedo pueden
        para con los las una unos unas del este esta estos estas eso esto esa ese por favor hola gracias quiero
        el la lo de en un es se no te me mi tu su ya le al si ni yo os
    """),
    # Spanish is indexed as words: its question words are stopwords, matched whole.
    question_words=(),
    question_particles=(),
    question_fillers=(),
    question_endings=(),
    # Spanish writes compounds as separate words ("servicio de bicicletas").
    compound_kind="",
    compound_suffixes=(),
    framing=words("""
        cliente clienta clientes usuario usuaria usuarios visitante persona él ella ellos ellas
        su sus le les lo se suyo suya
        acudir acude acuden
        quiere quieren quería querían querría desea desean deseaba necesita necesitan necesitaba
        requiere prefiere prefieren prefería preferiría preferencia pide piden pidió pregunta
        preguntó solicita tiene tienen tenía tenían posee poseen dueño dueña propietario propietaria
        gusta gustan encanta interesa interesado interesada interesados interés planea planean
        planifica piensa pensando considera considerando pretende busca buscan es son está están
        era eran fue ser estar gestiona gestionan dirige dirigen maneja regenta lleva llevan
        administra trabaja trabajan usa usan utiliza utilizan opera menciona mencionó dice dijo
        indica indicó comenta comentó actualmente también normalmente habitualmente
        principalmente generalmente sobre todo aproximadamente alrededor junto juntos
        suele suelen soler solía profesión oficio
    """),
    # Taking a medicine and its dose; and buying or collecting what the business sells ("Recoge
    # la medicación …" / "Pasa a por los medicamentos …"). "Encargar" stays a thing: its noun,
    # "encargo", is a synonym of "pedido".
    light_words=words("toma tomar tomando dosis compra comprar compró recoge recoger recogió"),
    function_words=words("""
        que del los las una unos unas por para con sus muy más mas sobre todo todos todas cada
        desde ya porque pues así sólo solamente únicamente nunca ningún ninguno ninguna nada sin tampoco
    """),
    # Snowball's Spanish stemmer brings the inflected forms to one stem.
    irregular_forms=frozen({}),
    verbal_noun_endings=(),  # a verbal noun is a stem of its own ("mudanza" / "se muda"), no ending
    verbal_noun_links=(),
    verbal_noun_lookalikes=(),
    word_endings=(),
    contact_labels=frozen({
        "phone": words("teléfono telefono móvil movil número numero"),
        "email": words("email e-mail correo dirección direccion"),
        "url": words("web página pagina sitio"),
        "name": words("nombre llama llamo apellido"),
    }),
    address_words=("dirección", "direccion"),
    number_words=frozen({form: value for value, forms in _NUMBER_FORMS.items() for form in forms.split()}),
    number_connectors=("y",),  # "treinta y cinco"
    # Spanish numerals count on their own; units are words of their own, checked as
    # content words.
    counted_number_words=frozen({}),
    counters=(),
    number_units=(),
    months=frozen({m: i + 1 for i, m in enumerate(_MONTHS)} | {"setiembre": 9}),
    month_names_capitalised=False,  # "en mayo"
    month_after_number=None,  # months are names, not numbers with a suffix
    short_year=None,  # a year is written in full
    # Spanish month and weekday names do not inflect: every form is listed whole.
    month_prefixes=(),
    day_ordinals=frozen({"primero": 1}),  # the other days are said with cardinals ("catorce de marzo")
    day_of=("de",),
    # Abbreviated too ("los lun y jue"), but for "mar" (the sea) and "dom" (a name).
    weekdays=frozen({d: i + 1 for i, d in enumerate(_WEEKDAYS)} | {"sabados": 6, "domingos": 7}
                    | {"lun": 1, "mie": 3, "jue": 4, "vie": 5, "sab": 6}),
    weekday_prefixes=(),
    fold_accents=True,
    decimal_mark=",",  # "2,5 kg" in Spain and most of South America; Mexico writes "2.5" and dates "14/03"
    abbreviations=words("sr sra dra"),
    # Latin script has capitals: a name is a capitalised word, wherever it stands.
    name_titles=(),
    name_intros=(),
    place_endings=(),
    negation=whole_words(words("no nunca jamás ningún ninguno ninguna nada sin tampoco ni")),
    clause_splitters=words("pero sino aunque"),
    # Negation scope runs from the negation to the end of its clause (clause_splitters).
    negates_word_before=(),
    negates_word_after=(),
    negated_endings=(),
    correction_cues=(
        # A couple parted, someone come to live with the customer: "nos separamos", "mi madre se ha
        # venido a vivir con nosotros".
        "nos separamos", "nos divorciamos", "rompimos", "venido a vivir", "vino a vivir", "vinieron a vivir",
        # A trip over: "ya volvimos de Perú".
        "volvimos de", "volví de", "he vuelto de", "hemos vuelto de",
        # A class or a habit given up: "ha decidido dejar el inglés".
        "decidido dejar", "decidió dejar",
        "olvida", "olvide", "olvídalo", "olvídelo", "borra", "borre", "elimina", "elimine",
        "no es cierto", "no es verdad", "eso no es así", "está mal", "incorrecto", "se equivoca",
        "me confunde con otra persona", "desactualizado",
        # Cómo se pide de verdad: "nos hemos mudado", "quítalo", "el número viejo".
        "quítalo", "quítelo", "quitadlo", "quitar eso", "lo enterramos", "la enterramos", "bórralo", "bórrelo", "táchalo", "corrige",
        "corrija", "corregid", "actualiza", "actualice", "nos hemos pasado", "me he pasado",
        "nos pasamos a", "me pasé a", "va a otro", "vamos a otro", "voy a otro", "dirección vieja",
        "dirección antigua", "antigua dirección", "número viejo", "número antiguo", "antiguo número",
        "número nuevo", "nuevo número", "nueva dirección", "dirección nueva", "me lo robaron",
        "nos lo robaron", "me la robaron", "nos la robaron", "ha muerto", "falleció", "hemos recortado",
        "hemos reducido",
        # Un hecho que acaba con lo guardado: "Thor se nos fue", "el médico me ha quitado la pastilla".
        "se nos fue", "se nos ha ido", "nos dejó", "nos ha dejado", "me ha quitado", "me han quitado", "me quitó",
        "me quitaron", "le quitaron", "le han quitado",
        # Lo que se da por terminado: "adiós a las gafas", "quitadme lo de la moto", "cancela el ramo".
        "adiós a", "adios a", "quitéis", "quitad", "quiten", "cancela", "de baja",
        # Un nacimiento acaba un embarazo, un coche al desguace, lo que "se acabó".
        "ha nacido", "ya nació", "ya nacio", "nació mi", "nacio mi", "nació nuestr", "nacio nuestr", "di a luz",
        "dado a luz", "dio a luz",
        "se acabó", "se acabo", "no más", "nunca más", "desguace", "achatarr", "lo regalamos", "la regalamos", "tuvimos que dormir",
        # In a message any form asks for a change ("quiero cambiar el número"); in a fact only the
        # change cues' past forms say one ("cambio de aceite", an oil change, is no change).
        "cambi",
        # Given away by the customer alone: "la de montaña se la he regalado a mi sobrino".
        "he regalado", "hemos regalado", "lo regalé", "la regalé",
        # A pet's death said as a farewell: "tuvimos que despedirnos de nuestro bóxer".
        "despedirnos de", "nos despedimos de", "despedirme de", "me despedí de",
        # A condition that healed: "ya se ha curado", "se recuperó del todo".
        "se ha curado", "se curó", "está curado", "está curada", "se ha recuperado", "se recuperó",
        # In a message these correct; in a fact they state a preference, a time or the past
        # ("Entrena a las 7:00, antes de trabajar.", "Quiere té en vez de café."), so they are no change cues.
        "en vez de", "antes", "en lugar de", "al final",
    ),
    change_cues=(
        # "Actually" in a fact says the value it states replaces one ("En realidad prefiere el pasillo.").
        "en realidad",
        # "A partir de ahora", "se ha ido a vivir a …".
        "a partir de", "desde ahora", "ido a vivir",
        "ahora", "vendí", "vendimos", "vendido", "dejé",
        # "Cambió", "ha cambiado": not "cambio" (an oil change) nor "cambiar" (to be changed).
        "dejamos", "cambió", "cambiado", "cambiada", "cambiamos", "cambiaron", "cambié", "me mudé", "nos mudamos", "murió", "se murió", "regalé", "quitamos",
        "terminé", "cancel", "descart",
        "cerré", "cerramos", "me jubilé", "se rompió", "perdí", "me curé", "se curó",
        # A fact says a change in the third person: "Se ha mudado a Alicante.", "Ha pasado a …".
        "se ha mudado", "se mudó", "se mudaron", "mudad", "se ha pasado", "ha pasado a", "pasó a", "ha subido",
        "trasladad", "se trasladó", "han subido", "ha bajado", "han bajado", "ha pasado la", "ha pasado el",
        "ha pasado los", "ha pasado las", "aplaz", "pospu", "ha sustituido", "últimamente",
        # A value gone up, down or later, and "no longer": "Le hemos subido la tarifa a …", "Ya no es …".
        "subido", "bajado", "retras", "ya no",
    ),
    residence_words=words("""
        vive vivo vivimos viven vivía vivi mudé mudó mudamos mudad mudaron mudanza mudo traslad reside
        domicilio$ domicilios$
    """),
    channel_words=words("correo$ electrónico$ email e-mail mail$ sms mensaje whatsapp telegram llamada llamar llamarle llamen llamemos teléfono telefónic contacten contactemos contactar contacto$ avisen avisemos avisar escriban escribamos escribir"),
    # Not "domiciliación" (a direct debit) nor "nueve" (nine).
    new_words=words("nuevo nueva"),
    relatives=words("""
        hijo hija hijos hijas esposa esposo marido mujer madre padre mamá papá herman abuel nieto
        nieta nietos sobrin suegr novia novio pareja bebé niño niña niños niñas tío tía crío
    """),
    # One word for each line ("móvil", not also "celular").
    contact_owners=words("trabajo oficina empresa personal particular casa móvil fijo principal segund secundari"),
    contrasts=sides("""
        izquierd/derech superior/inferior arriba/abajo delanter/traser mayor/menor mayor/pequeñ desayun/cena calient/frí
        padre/madre hijo/hija marido/mujer esposo/esposa hermano/hermana abuelo/abuela nieto/nieta
        sobrino/sobrina tío/tía
    """),
    synonyms=groups("""
        cuidar ocupar
        microgramo mcg
        niño crío
        coche auto automóvil
        móvil celular
        reserva reservación
        vivir residir
        vivienda hogar
        madre mamá
        médico doctor
        dentista odontólogo
        gafas anteojos
        bicicleta bici
        moto motocicleta
        autobús bus
        nevera frigorífico refrigerador heladera
        ordenador computadora computador
        normalmente habitualmente usualmente
        efectivo metálico
        pedido encargo
        colegio escuela
        profesor docente
        alumno estudiante
        jubilado retirado
        caducar expirar vencer
        cancelar anular
        comprar adquirir
        alquilar arrendar rentar
        alquiler arriendo
        medicamento fármaco
        pastilla comprimido
        embarazada encinta
        cacahuete cacahuate
        melocotón durazno
        fresa frutilla
        aguacate palta
        zumo jugo
        boda casamiento
        pelo cabello
        reparar arreglar
        averiado estropeado
        fontanero plomero
        grifo canilla
        inodoro váter retrete
        dormitorio alcoba recámara
        garaje cochera
        fotografía foto
        gasolina nafta bencina
        diésel gasóleo gasoil
        enviar mandar
        regalo obsequio
        comenzar empezar iniciar
        terminar finalizar concluir
        usar utilizar
        fallecer morir
        gripe gripa influenza
        resfriado catarro resfrío
        aplazar posponer postergar
        retraso demora
        sueldo salario
        mudanza muda
        trasladar mover
        americana chaqueta
        póliza seguro asegurado
        día diario
        renovación renueva renovar
        matemáticas mates
    """),
    numbered_things=words("""
        diente$ muela$ pieza$ habitación$ habitacion$ pedido$ mesa$ asiento$ taquilla$ box$ factura$ plaza$
        parcela$ trastero$ modelo$ nº n.º núm. #
    """),
    animals=words("""
        mascota perr perrit cachorr gat gatit conej hámster hamster loro lora periquit canari cobaya tortug
        caball poni hurón huron labrador golden caniche bulldog beagle teckel chihuahua
        yorkshire pastor galgo podenco
    """),
    value_labels=words("""
        enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
        lunes martes miércoles jueves viernes sábado domingo mañana tarde noche
        correo email teléfono llamada llamar sms mensaje whatsapp
        semanal quincenal mensual trimestral anual semanalmente mensualmente anualmente
    """),
    # The Spanish stemmer folds words naming different people into one stem
    # ("hija"/"hijo" -> "hij"): they are compared whole, so a daughter and a son
    # stay two facts.
    keep_whole=words("""
        hijo hija hijos hijas niño niña niños niñas nieto nieta hermano hermana abuelo abuela tío tía
        esposo esposa
    """),
    label_ends=words("es$ son$"),
    # Folded as the tokens are (fold_accents): "dia", "ano".
    period_units=frozen({"dia$": 1, "dias$": 1, "semana": WEEK, "quincena": 14, "mes$": MONTH, "meses$": MONTH,
                         "ano$": YEAR, "anos$": YEAR, "trimestre": YEAR / 4, "semestre": YEAR / 2}),
    period_words=frozen({"diari": 1, "semanal": WEEK, "quincenal": 14, "mensual": MONTH, "trimestral": YEAR / 4,
                         "semestral": YEAR / 2, "anual": YEAR}),
    every_words=words("cada$ todos$ todas$"),
    every_after=(),  # "every" stands before the period
    times_words=frozen({"vez$": 1, "veces$": 1, "x$": 1}),
    per_words=words("al$ a$ la$ el$ los$ las$ por$"),
    period_counts=frozen({"medio$": 0.5, "media$": 0.5}),
    currency_words=frozen({**dict.fromkeys(words("euro euros"), "EUR"),
                           **dict.fromkeys(words("dólar dólares dolar dolares"), "USD")}),
    money_scales=frozen({"mil": 1000, "millón": 10**6, "millon": 10**6, "millones": 10**6}),
    range_words=("de … a", "desde … hasta", "entre … y"),
    contact_offer="Para conocer el precio exacto, contáctenos y le ayudaremos con mucho gusto.",
    offline_texts=frozen({
        "pinned": "Esto es lo que dice nuestra información:",
        "found": "He encontrado esto en nuestra web:",
        "source": "Fuente",
        "none": "Lo siento, no tengo esa información. Contáctenos y le ayudaremos.",
        "note": "(Respuesta automática citada de nuestra información.)",
    }),
    readback="He olvidado esto:",
)
